import { call, type RunningService } from '@custos/test-kit';
import { useStack } from './use-stack';
import { event } from './policies';

/**
 * valueChanged state belongs to one deployment of a policy, on every replica (docs/api.md): with pap and two pdp
 * processes, a change stored by one replica is seen by the other, a replace keeps the state, and a revoke followed by
 * a deploy starts afresh.
 */
const NS = [
  'xmlns="http://www.mydata-control.de/4.0/mydataLanguage"',
  'xmlns:event="http://www.mydata-control.de/4.0/event"',
  'xmlns:valueChanged="http://www.mydata-control.de/4.0/valueChanged"',
].join(' ');
const RUN = `r${Date.now().toString(36)}`;
const NAME = `watch-${RUN}`;
const ID = `urn:policy:acme:${NAME}`;

/** Inhibits when `state` differs from the stored value (a change), else allows; `reason` tells versions apart. */
const watching = (reason: string) => `<policy ${NS} id="${ID}">
  <mechanism event="urn:action:acme:${NAME}">
    <if><valueChanged:string id="state"><event:string eventParameter="state" default=""/></valueChanged:string>
      <then><inhibit reason="${reason}"/></then></if>
    <else><allow/></else>
  </mechanism>
</policy>`;

describe('valueChanged across a revoke and a redeploy, on two pdp replicas', () => {
  const system = useStack({ replicas: 2 });

  const pap = (method: string, path: string, body?: { xml?: string }) => call(method, `${system.stack.pap.url}${path}`, { token: system.token, ...body });
  const revisionOf = (response: { headers: Headers }) => Number(response.headers.get('policy-revision'));
  const replica = (index: number): RunningService => {
    const pdp = system.stack.pdps[index];
    if (pdp === undefined) throw new Error(`no replica ${index}`);
    return pdp;
  };
  /** true when the replica saw a change, deciding with at least `revision`. */
  const changed = async (index: number, revision: number): Promise<boolean> => {
    const response = await call('POST', `${replica(index).url}/event`, {
      token: system.token,
      json: event('acme', NAME, [{ name: 'state', value: 'open' }]),
      headers: { 'Min-Policy-Revision': String(revision) },
    });
    expect(response.status).toBe(200);
    return (response.body as { eventAllowed: boolean }).eventAllowed === false;
  };

  it('starts afresh after a revoke and a deploy, and keeps its state over a replace', async () => {
    expect((await pap('POST', '/ws/policy', { xml: watching('v1') })).status).toBe(201);
    const deployed = revisionOf(await pap('POST', `/ws/policy/${ID}/deploy`));
    expect(await changed(0, deployed)).toBe(true);
    expect(await changed(1, deployed)).toBe(false);

    const replaced = await pap('PUT', `/ws/policy/${ID}`, { xml: watching('v2') });
    expect(replaced.status).toBe(200);
    expect(await changed(1, revisionOf(replaced))).toBe(false);

    expect((await pap('POST', `/ws/policy/${ID}/revoke`)).body).toBe(true);
    const redeployed = revisionOf(await pap('POST', `/ws/policy/${ID}/deploy`));
    expect(redeployed).toBeGreaterThan(revisionOf(replaced));
    expect(await changed(1, redeployed)).toBe(true);
    expect(await changed(0, redeployed)).toBe(false);
  }, 60_000);
});
