"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.brokenPolicy = exports.maskingPolicy = exports.allowAll = exports.inhibitAll = exports.policyXml = void 0;
/** Policy XML for tests (MYDATA 4.0, the subset the engine supports in this issue). */
const NS = 'xmlns="http://www.mydata-control.de/4.0/mydataLanguage" ' +
    'xmlns:constant="http://www.mydata-control.de/4.0/constant" ' +
    'xmlns:event="http://www.mydata-control.de/4.0/event" ' +
    'xmlns:parameter="http://www.mydata-control.de/4.0/parameter"';
const policyXml = (id, mechanisms) => `<policy ${NS} id="${id}">\n${mechanisms}\n</policy>`;
exports.policyXml = policyXml;
/** Inhibits every event of `action`. */
const inhibitAll = (id, action, reason = 'blocked') => (0, exports.policyXml)(id, `  <mechanism event="${action}">\n    <if><constant:true/><then><inhibit reason="${reason}"/></then></if>\n  </mechanism>`);
exports.inhibitAll = inhibitAll;
/** Allows every event of `action` (so DEFAULT_DECISION=inhibit does not apply). */
const allowAll = (id, action) => (0, exports.policyXml)(id, `  <mechanism event="${action}">\n    <if><constant:true/><then><allow/></then></if>\n  </mechanism>`);
exports.allowAll = allowAll;
/**
 * Inhibits `action` when the number parameter `amount` equals `limit`; otherwise allows it with
 * modifiers of every value type, a delay and an execute.
 */
const maskingPolicy = (id, action, limit = 1000) => (0, exports.policyXml)(id, `  <mechanism event="${action}">
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
  </mechanism>`);
exports.maskingPolicy = maskingPolicy;
/** Not a policy the engine accepts (unknown element). */
const brokenPolicy = (id, action) => (0, exports.policyXml)(id, `  <mechanism event="${action}">\n    <if><noSuchFunction/><then><allow/></then></if>\n  </mechanism>`);
exports.brokenPolicy = brokenPolicy;
//# sourceMappingURL=policies.js.map