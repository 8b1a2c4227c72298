import { waitFor } from '@custos/test-kit';
import { policy, wireEvent } from './support/pdp';
import { usePdp } from './support/use-pdp';

/**
 * valueChanged state belongs to one deployment of its policy (docs/api.md): a policy revoked and deployed again
 * starts afresh, a policy replaced while deployed keeps its state. Through POST /event and /event/explain on real
 * PostgreSQL and NATS, with the fake pap shipping `deployedAt` as pap does.
 */
const A = (name: string) => `urn:action:acme:${name}`;
const P = (name: string) => `urn:policy:acme:${name}`;

/** Inhibits when `state` differs from the value stored for this policy's block `state`, else allows. */
const watching = (id: string, action: string, reason: string, extra = '') =>
  policy(
    id,
    `${extra}
    <mechanism event="${action}">
      <if><valueChanged:string id="state"><event:string eventParameter="state" default=""/></valueChanged:string>
        <then><inhibit reason="${reason}"/></then></if>
      <else><allow/></else>
    </mechanism>`,
  );

/** Makes the action recorded (a decision then goes through the history batch), and never decides anything. */
const recording = (action: string) =>
  `<mechanism event="${action}"><if><less><count><eventOccurrence event="${action}"></eventOccurrence><when fixedTime="always"/></count><constant:number value="-1"/></less><then><inhibit/></then></if></mechanism>`;

describe('valueChanged per deployment', () => {
  const pdp = usePdp();

  /** true when the decision saw a change (the policy inhibits then). */
  const changed = async (name: string, state: string): Promise<boolean> => {
    const response = await pdp.post('/event', wireEvent(name, { state }));
    expect(response.status).toBe(200);
    return (response.body as { eventAllowed: boolean }).eventAllowed === false;
  };
  const explained = async (name: string, state: string): Promise<unknown> => {
    const response = await pdp.post('/event/explain', wireEvent(name, { state }));
    expect(response.status).toBe(200);
    // The mechanism with the valueChanged block (the recording one has none).
    const { explanation } = response.body as { explanation: Array<{ valueChanged?: unknown }> };
    return explanation.find((mechanism) => mechanism.valueChanged !== undefined)?.valueChanged;
  };
  const storedDeployment = async (policyId: string): Promise<string | undefined> =>
    (await pdp.pool.query<{ deployed_at: string }>('SELECT deployed_at FROM pdp.value_changed WHERE policy_id = $1', [policyId])).rows[0]
      ?.deployed_at;

  for (const [name, extra] of [
    ['read on the pool', ''],
    ['recorded through the history batch', 'recording'],
  ] as const) {
    it(`starts afresh after a revoke and a deploy, and keeps its state over a replace (${name})`, async () => {
      const name = `watch-${extra || 'plain'}`;
      const id = P(name);
      const action = A(name);
      const body = extra === '' ? '' : recording(action);
      await pdp.deploy(id, watching(id, action, 'v1', body));
      const first = pdp.pap.deployedAt.get(id);
      expect(first).toBe(pdp.pap.revision);

      expect(await changed(name, 'open')).toBe(true);
      expect(await changed(name, 'open')).toBe(false);
      expect(await storedDeployment(id)).toBe(String(first));

      // Replaced while deployed: the same deployment, the same state.
      await pdp.deploy(id, watching(id, action, 'v2', body));
      expect(pdp.pap.deployedAt.get(id)).toBe(first);
      expect(await changed(name, 'open')).toBe(false);

      await pdp.revoke(id);
      const redeployed = await pdp.deploy(id, watching(id, action, 'v2', body));
      expect(pdp.pap.deployedAt.get(id)).toBe(redeployed);
      // The old deployment's `open` is not this deployment's: explain compares against nothing stored, and stores nothing.
      expect(await explained(name, 'open')).toEqual([{ id: 'state', changed: true, stored: false }]);
      expect(await storedDeployment(id)).toBe(String(first));
      expect(await changed(name, 'open')).toBe(true);
      expect(await storedDeployment(id)).toBe(String(redeployed));
      expect(await changed(name, 'open')).toBe(false);
      expect(await explained(name, 'open')).toEqual([{ id: 'state', changed: false, stored: false }]);
      const recorded = await pdp.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM pdp.history_events WHERE action = $1', [action]);
      expect(recorded.rows[0]?.n).toBe(extra === '' ? 0 : 5);
    });
  }

  it('keeps the state of a policy shipped without `deployedAt` across a revoke and a deploy, as before', async () => {
    const name = 'unversioned';
    const id = P(name);
    const action = A(name);
    const xml = watching(id, action, 'v1');
    const deployBare = async () => {
      // As pap ships a policy deployed before it remembered deployments: no `deployedAt`.
      pdp.pap.revision++;
      pdp.pap.policies.set(id, xml);
      pdp.pap.publish({ revision: pdp.pap.revision, type: 'deploy', policy: { id, xml } });
      const revision = pdp.pap.revision;
      await waitFor(() => (pdp.follower.active?.revision ?? -1) >= revision, { what: `revision ${revision}` });
    };
    await deployBare();
    expect(await changed(name, 'open')).toBe(true);
    expect(await storedDeployment(id)).toBe('0');
    await pdp.revoke(id);
    await deployBare();
    expect(await changed(name, 'open')).toBe(false);
  });

  it('never lets a set of an older deployment overwrite the state of a newer one', async () => {
    const policyId = P('lagging');
    const ask = (deployedAt: number, value: string, store = true) =>
      pdp.store.reader(1, new Map([[policyId, deployedAt]])).valueChanged({ policyId, id: 'state', value, store });
    expect(await ask(7, 'a')).toBe(true);
    expect(await ask(7, 'a')).toBe(false);
    // A replica still on deployment 3 sees nothing of deployment 7's and writes nothing over it.
    expect(await ask(3, 'a', false)).toBe(true);
    expect(await ask(3, 'b')).toBe(false);
    expect(await ask(7, 'a')).toBe(false);
    // A newer deployment replaces the row.
    expect(await ask(9, 'a')).toBe(true);
    expect(await ask(9, 'a')).toBe(false);
    expect(await storedDeployment(policyId)).toBe('9');
  });
});
