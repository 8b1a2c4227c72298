/** Policies of the system tests, written as an administrator would. */

/** The namespaces every policy of the system tests declares. */
export const NAMESPACES =
  'xmlns="http://www.mydata-control.de/4.0/mydataLanguage" ' +
  'xmlns:event="http://www.mydata-control.de/4.0/event" ' +
  'xmlns:constant="http://www.mydata-control.de/4.0/constant" ' +
  'xmlns:parameter="http://www.mydata-control.de/4.0/parameter"';

/** Inhibits `action` for every event. */
export function inhibitAll(solution: string, name: string, action: string): string {
  return `<policy ${NAMESPACES} id="urn:policy:${solution}:${name}">
  <mechanism event="urn:action:${solution}:${action}">
    <if>
      <constant:true/>
      <then><inhibit reason="${name}"/></then>
    </if>
  </mechanism>
</policy>`;
}

export function event(solution: string, action: string, parameters: Array<{ name: string; value: unknown }> = []) {
  return {
    actionId: { scope: solution, action },
    timestamp: Date.now(),
    parameters: parameters.map(({ name, value }) => ({
      name,
      value: { value, type: typeof value === 'string' ? 'java.lang.String' : 'java.lang.Object', isComplex: typeof value === 'object' },
    })),
  };
}
