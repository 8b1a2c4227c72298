// Benchmark policies and events, and the calls that add, change, load and decide them.
import { SOLUTION } from './base.mjs';
import { pool, request } from './client.mjs';

// ---------------------------------------------------------------------------------------------
// Policies and events

const NAMESPACES =
  'xmlns="http://www.mydata-control.de/4.0/mydataLanguage" ' +
  'xmlns:event="http://www.mydata-control.de/4.0/event" ' +
  'xmlns:constant="http://www.mydata-control.de/4.0/constant" ' +
  'xmlns:parameter="http://www.mydata-control.de/4.0/parameter"';

export const policyId = (name) => `urn:policy:${SOLUTION}:${name}`;

/** The README's example shape: inhibit Mallory, mask everybody else's first name. One action per policy. */
export function maskPolicy(name, action) {
  return `<policy ${NAMESPACES} id="${policyId(name)}" name="bench ${name}">
  <mechanism event="urn:action:${SOLUTION}:${action}">
    <if>
      <equals>
        <event:string eventParameter="user" jsonPathQuery="$.name.firstName" default=""/>
        <constant:string value="Mallory"/>
      </equals>
      <then><inhibit reason="Mallory is never shown"/></then>
    </if>
    <else>
      <modify eventParameter="user" method="append" jsonPathQuery="$.name.firstName">
        <parameter:string name="suffix" value=" (masked)"/>
      </modify>
    </else>
  </mechanism>
</policy>`;
}

/** Inhibits `action` for every event (for propagation and consistency checks: the decision shows the set). */
export function inhibitPolicy(name, action) {
  return `<policy ${NAMESPACES} id="${policyId(name)}">
  <mechanism event="urn:action:${SOLUTION}:${action}">
    <if>
      <constant:true/>
      <then><inhibit reason="${name}"/></then>
    </if>
  </mechanism>
</policy>`;
}

/** A README-sized event (≈ 250 bytes) for `action` of the bench solution. */
export function eventJson(action, firstName = 'Ann') {
  return JSON.stringify({
    actionId: { scope: SOLUTION, action },
    timestamp: 1763798400000,
    parameters: [
      {
        name: 'user',
        value: { value: { id: 'u1', name: { firstName, lastName: 'Example' }, department: 'hr' }, type: 'com.acme.User', isComplex: true },
      },
    ],
  });
}

const bearer = (token) => ({ Authorization: `Bearer ${token}` });

export async function addPolicy(core, xml) {
  const answer = await request('POST', `${core.pap.url}/ws/policy`, {
    headers: { ...bearer(core.token), 'Content-Type': 'application/xml' },
    body: xml,
  });
  if (answer.status !== 201) throw new Error(`adding a policy answered ${answer.status}: ${answer.text.slice(0, 400)}`);
  return answer;
}

/** Deploys (`deploy`) or revokes (`revoke`) a policy; returns {revision, ms, answer}. */
export async function changePolicy(core, id, change) {
  const answer = await request('POST', `${core.pap.url}/ws/policy/${id}/${change}`, { headers: bearer(core.token) });
  if (answer.status !== 200 || answer.text !== 'true') {
    throw new Error(`${change} of ${id} answered ${answer.status}: ${answer.text.slice(0, 400)}`);
  }
  return { revision: Number(answer.headers['policy-revision']), ms: answer.ms, answer };
}

/**
 * Adds (and optionally deploys) policies `p<from>`…`p<from+count-1>` (action `a<i>`) with bounded
 * concurrency. Returns {count, seconds, perSecond, addMs[], deployMs[], lastRevision}.
 */
export async function loadPolicies(core, { from = 0, count, deploy = true, concurrency = 8, make = (i) => maskPolicy(`p${i}`, `a${i}`), name = (i) => `p${i}` }) {
  const indexes = Array.from({ length: count }, (_, k) => from + k);
  const addMs = [];
  const deployMs = [];
  let lastRevision = 0;
  const started = performance.now();
  await pool(indexes, concurrency, async (i) => {
    addMs.push((await addPolicy(core, make(i))).ms);
    if (deploy) {
      const deployed = await changePolicy(core, policyId(name(i)), 'deploy');
      deployMs.push(deployed.ms);
      lastRevision = Math.max(lastRevision, deployed.revision);
    }
  });
  const seconds = (performance.now() - started) / 1000;
  return { count, seconds, perSecond: count / seconds, addMs, deployMs, lastRevision };
}

/** POST /event on a pdp; resolves {status, allowed, revision, ms, body}. */
export async function decide(core, pdp, action, { minRevision, body = eventJson(action) } = {}) {
  const headers = { ...bearer(core.token), 'Content-Type': 'application/json' };
  if (minRevision !== undefined) headers['Min-Policy-Revision'] = String(minRevision);
  const answer = await request('POST', `${pdp.url}/event`, { headers, body });
  let parsed;
  try {
    parsed = answer.json();
  } catch {
    parsed = undefined;
  }
  return {
    status: answer.status,
    allowed: parsed?.eventAllowed,
    revision: Number(answer.headers['policy-revision']),
    ms: answer.ms,
    body: parsed ?? answer.text,
  };
}

/**
 * Records rows written straight into pap's tables as a change, in the writer's own transaction-less session: the next
 * revision with a `resync` in the outbox. Without it the set changed under a revision pap already answered for, which
 * neither pap's kept snapshot nor the replicas' periodic check can see (every change of the set takes a revision).
 * Resolves the revision.
 */
export async function recordDirectWrite(client) {
  const result = await client.query(
    `WITH bumped AS (UPDATE pap.state SET revision = revision + 1 RETURNING revision)
     INSERT INTO pap.outbox (revision, message) SELECT revision, jsonb_build_object('revision', revision, 'type', 'resync') FROM bumped
     RETURNING revision`,
  );
  return Number(result.rows[0].revision);
}
