/** Policy XML for tests (MYDATA 4.0, the subset the engine supports in this issue). */
const NS =
  'xmlns="http://www.mydata-control.de/4.0/mydataLanguage" ' +
  'xmlns:constant="http://www.mydata-control.de/4.0/constant" ' +
  'xmlns:event="http://www.mydata-control.de/4.0/event" ' +
  'xmlns:parameter="http://www.mydata-control.de/4.0/parameter"';

export const policyXml = (id: string, mechanisms: string): string => `<policy ${NS} id="${id}">\n${mechanisms}\n</policy>`;

/** Inhibits every event of `action`. */
export const inhibitAll = (id: string, action: string, reason = 'blocked'): string =>
  policyXml(id, `  <mechanism event="${action}">\n    <if><constant:true/><then><inhibit reason="${reason}"/></then></if>\n  </mechanism>`);

/** Allows every event of `action` (so DEFAULT_DECISION=inhibit does not apply). */
export const allowAll = (id: string, action: string): string =>
  policyXml(id, `  <mechanism event="${action}">\n    <if><constant:true/><then><allow/></then></if>\n  </mechanism>`);

/**
 * Inhibits `action` when the number parameter `amount` equals `limit`; otherwise allows it with
 * modifiers of every value type, a delay and an execute.
 */
export const maskingPolicy = (id: string, action: string, limit = 1000): string =>
  policyXml(
    id,
    `  <mechanism event="${action}">
    <if>
      <equals><event:number eventParameter="amount" default="0"/><constant:number value="${limit}"/></equals>
      <then><inhibit reason="too much"/></then>
    </if>
    <else>
      <modify eventParameter="user" method="append" jsonPathQuery="$.name.firstName">
        <parameter:string name="suffix" value=" (masked)"/>
      </modify>
      <modify eventParameter="amount" method="round">
        <parameter:number name="interval" value="100"/>
        <parameter:boolean name="up" value="true"/>
        <parameter:object name="options" value='{"mode":"half"}'/>
        <parameter:list name="steps" value="[1,2]"/>
      </modify>
      <delay amount="2" unit="SECONDS"/>
      <execute action="urn:action:acme:notify"><parameter:string name="channel" value="audit"/></execute>
    </else>
  </mechanism>`,
  );

/** Not a policy the engine accepts (unknown element). */
export const brokenPolicy = (id: string, action: string): string =>
  policyXml(id, `  <mechanism event="${action}">\n    <if><noSuchFunction/><then><allow/></then></if>\n  </mechanism>`);
