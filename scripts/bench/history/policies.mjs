// The history benchmark's policies, request bodies and sizes.
import * as lib from '../lib.mjs';

export const REPLICAS = 3;
export const CONNECTIONS = 50;
export const SPREAD_ACTIONS = 16;
const NS =
  'xmlns="http://www.mydata-control.de/4.0/mydataLanguage" xmlns:event="http://www.mydata-control.de/4.0/event" ' +
  'xmlns:constant="http://www.mydata-control.de/4.0/constant" xmlns:parameter="http://www.mydata-control.de/4.0/parameter" ' +
  'xmlns:pip="http://www.mydata-control.de/4.0/pip"';
export const S = lib.SOLUTION;

/** "At most `limit` per day and user" on `action` (a billion: every decision records and counts, none is inhibited). */
export const limitPolicy = (name, action, limit = 1_000_000_000) => `<policy ${NS} id="${lib.policyId(name)}">
  <mechanism event="urn:action:${S}:${action}">
    <if><greater><count><eventOccurrence event="urn:action:${S}:${action}">
          <parameter:string name="user" jsonPathQuery="$.id"><event:string eventParameter="user" jsonPathQuery="$.id" default=""/></parameter:string>
        </eventOccurrence><when fixedTime="today"/></count><constant:number value="${limit}"/></greater>
      <then><inhibit reason="daily limit"/></then></if>
    <else><allow/></else>
  </mechanism>
</policy>`;

/** "At most `limit` today" counted over the whole action, whoever the user: every decision asks the same count. */
export const actionLimitPolicy = (name, action, limit = 1_000_000_000) => `<policy ${NS} id="${lib.policyId(name)}">
  <mechanism event="urn:action:${S}:${action}">
    <if><greater><count><eventOccurrence event="urn:action:${S}:${action}"/><when fixedTime="today"/></count><constant:number value="${limit}"/></greater>
      <then><inhibit reason="daily limit"/></then></if>
    <else><allow/></else>
  </mechanism>
</policy>`;

/** The same decision shape, once with a PIP (ttl 1h) and once with a constant in its place. */
const roleCondition = (withPip) =>
  withPip
    ? `<pip:string method="urn:info:${S}:role" default="nobody" ttl="1h"><parameter:string name="user"><event:string eventParameter="user" jsonPathQuery="$.id" default=""/></parameter:string></pip:string>`
    : '<constant:string value="admin"/>';
export const rolePolicy = (name, action, withPip) => `<policy ${NS} id="${lib.policyId(name)}">
  <mechanism event="urn:action:${S}:${action}">
    <if><equals>${roleCondition(withPip)}<constant:string value="admin"/></equals><then><allow/></then></if>
    <else><inhibit/></else>
  </mechanism>
</policy>`;

export const LIMIT = 500;
export const LIMIT_REQUESTS = 3 * LIMIT;
export const FLOOR_ACTION = `urn:action:${S}:floor`;
export const FLOOR_LOCK_KEY = '4242424242';

/** Users u0…u(n-1): each connection cycles through several bodies (autocannon `requests`). */
export const bodies = (action, users) =>
  Array.from({ length: users }, (_, i) =>
    JSON.stringify({
      actionId: { scope: S, action },
      timestamp: Date.now(),
      parameters: [{ name: 'user', value: { value: { id: `u${i}`, name: { firstName: 'Ann' } }, type: 'com.acme.User', isComplex: true } }],
    }),
  );

/** Allows every event of `action` but one user's, with no history: the HTTP path and the decision log alone. */
const purePolicy = (name, action) => `<policy ${NS} id="${lib.policyId(name)}">
  <mechanism event="urn:action:${S}:${action}">
    <if><equals><event:string eventParameter="user" jsonPathQuery="$.id" default=""/><constant:string value="nobody"/></equals>
      <then><inhibit reason="nobody"/></then></if>
    <else><allow/></else>
  </mechanism>
</policy>`;

/**
 * Deploys the open-loop policies: `hotkey` (whole-action count), `peruser` (per-user count) and `purepath` (no
 * history: what the same requests cost without it, at the same rate).
 */
export const OPEN_LOOP_POLICIES = [
  [actionLimitPolicy('hotkey', 'hotkey'), 'hotkey'],
  [limitPolicy('peruser', 'peruser'), 'peruser'],
  [purePolicy('purepath', 'purepath'), 'purepath'],
];
