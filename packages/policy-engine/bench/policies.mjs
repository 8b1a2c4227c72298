// What the engine's benchmarks share: the namespaces of their policy documents and the mechanism every one of them
// measures (a few comparisons on event values with simple JSONPaths, a modify and a delay), so `decide.mjs` decides
// and `tree-read.mjs` reads exactly the same policy.

/** The namespaces of a policy document; `extra` names more prefixes of the MYDATA namespace family. */
export function namespaces(extra = []) {
  return ['', 'constant', 'event', 'parameter', ...extra]
    .map((prefix) => `xmlns${prefix === '' ? '' : `:${prefix}`}="http://www.mydata-control.de/4.0/${prefix === '' ? 'mydataLanguage' : prefix}"`)
    .join(' ');
}

/** A realistic policy of one mechanism on `action`, its literals varied by `index` as in a real deployment. */
export function realisticPolicyXml(index, action, ns = namespaces()) {
  return `<policy id="urn:policy:bench:p${String(index).padStart(5, '0')}" ${ns}>
  <mechanism event="${action}">
    <if>
      <and>
        <equals><event:string eventParameter="user" jsonPathQuery="$.role" default=""/><constant:string value="analyst"/></equals>
        <less><event:number eventParameter="size" default="0"/><constant:number value="${1000 + index}"/></less>
        <not><equals><event:string eventParameter="user" jsonPathQuery="$['name']" default=""/><constant:string value="mallory"/></equals></not>
      </and>
      <then>
        <modify eventParameter="user" method="replace" jsonPathQuery="$.name"><parameter:string name="replaceWith" value="***"/></modify>
        <delay amount="${index % 5}" unit="MILLISECONDS"/>
      </then>
    </if>
    <elseif>
      <equals><event:string eventParameter="tags" jsonPathQuery="$[0]" default=""/><constant:string value="secret"/></equals>
      <then><inhibit reason="secret"/></then>
    </elseif>
  </mechanism>
</policy>`;
}
