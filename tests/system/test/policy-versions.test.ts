import { call, startStack, TEST_NATS_URL, type RunningService, type Stack } from '@custos/test-kit';
import { event, inhibitAll } from './policies';

/**
 * Policy versions (issue 24) end to end: pap on PostgreSQL, two pdp replicas as processes. A deployed policy
 * rolled back to an earlier version is decided by the old text on every replica, from the revision the restore
 * answered.
 */
describe('rollback across replicas', () => {
  let stack: Stack;
  let token: string;

  beforeAll(async () => {
    stack = await startStack({ natsUrl: TEST_NATS_URL, replicas: 2 });
    token = await stack.adminToken();
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
  }, 60_000);

  const id = 'urn:policy:acme:rollback';
  const inhibiting = inhibitAll('acme', 'rollback', 'print');
  const allowing = inhibiting.replace('<inhibit reason="rollback"/>', '<allow/>');

  const decide = (pdp: RunningService, minRevision: number) =>
    call('POST', `${pdp.url}/event`, { token, json: event('acme', 'print'), headers: { 'Min-Policy-Revision': String(minRevision) } });

  async function expectEveryReplica(revision: number, allowed: boolean): Promise<void> {
    expect(stack.pdps).toHaveLength(2);
    for (const pdp of stack.pdps) {
      const decided = await decide(pdp, revision);
      expect(decided.status).toBe(200);
      expect(decided.body.eventAllowed).toBe(allowed);
      expect(decided.headers.get('policy-revision')).toBe(String(revision));
    }
  }

  it('decides by the old text on every replica once version 1 is restored', async () => {
    expect(allowing).not.toBe(inhibiting);
    expect((await call('POST', `${stack.pap.url}/ws/policy`, { token, xml: inhibiting })).status).toBe(201);
    const deployed = await call('POST', `${stack.pap.url}/ws/policy/${id}/deploy`, { token });
    await expectEveryReplica(Number(deployed.headers.get('policy-revision')), false);

    const replaced = await call('PUT', `${stack.pap.url}/ws/policy/${id}`, { token, xml: allowing });
    expect(replaced.status).toBe(200);
    await expectEveryReplica(Number(replaced.headers.get('policy-revision')), true);

    const restored = await call('POST', `${stack.pap.url}/ws/policy/${id}/versions/1/restore`, { token });
    expect(restored.status).toBe(200);
    expect(restored.body).toMatchObject({ version: 3, deployed: true, changed: true });
    expect(restored.headers.get('policy-revision')).toBe(String(restored.body.revision));
    await expectEveryReplica(restored.body.revision as number, false);

    const history = await call('GET', `${stack.pap.url}/ws/policy/${id}/versions`, { token });
    expect((history.body.versions as Array<{ number: number; deployed: boolean }>).map(({ number, deployed }) => ({ number, deployed }))).toEqual([
      { number: 1, deployed: false },
      { number: 2, deployed: false },
      { number: 3, deployed: true },
    ]);
  }, 60_000);
});
