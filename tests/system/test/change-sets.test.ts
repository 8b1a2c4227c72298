import { connect, type NatsConnection, type Subscription } from 'nats';
import { parseChange, policySubjects, type PolicyChange } from '@custos/contracts';
import { call, startStack, TEST_NATS_URL, waitFor, type RunningService, type Stack } from '@custos/test-kit';
import { event, inhibitAll } from './policies';

/**
 * Change sets (issue 25) end to end: pap on PostgreSQL, two pdp replicas as processes. A set of several policies is
 * one revision on the wire and on every replica; a set with one broken item changes nothing anywhere.
 */
describe('change sets across replicas', () => {
  let stack: Stack;
  let token: string;
  let observer: NatsConnection;
  let subscription: Subscription;
  const seen: PolicyChange[] = [];

  beforeAll(async () => {
    stack = await startStack({ natsUrl: TEST_NATS_URL, replicas: 2 });
    token = await stack.adminToken();
    observer = await connect({ servers: TEST_NATS_URL });
    subscription = observer.subscribe(policySubjects(stack.natsPrefix).changes, {
      callback: (_error, message) => {
        const change = parseChange(message.data);
        if (typeof change !== 'string') seen.push(change);
      },
    });
    await observer.flush();
  }, 120_000);

  afterAll(async () => {
    subscription?.unsubscribe();
    await observer?.close();
    await stack?.stop();
  }, 60_000);

  const decide = (pdp: RunningService, action: string, minRevision: number) =>
    call('POST', `${pdp.url}/event`, { token, json: event('acme', action), headers: { 'Min-Policy-Revision': String(minRevision) } });
  const papRevision = async () => (await call('GET', `${stack.pap.url}/ws/replicas`, { token })).body.revision as number;
  const actions = ['print', 'scan', 'copy'];

  it('deploys several policies as one revision that every replica switches to at once', async () => {
    const before = await papRevision();
    const answer = await call('POST', `${stack.pap.url}/ws/changes`, {
      token,
      json: {
        changes: [
          ...actions.map((action) => ({ op: 'add', kind: 'policy', xml: inhibitAll('acme', `no-${action}`, action) })),
          ...actions.map((action) => ({ op: 'deploy', kind: 'policy', id: `urn:policy:acme:no-${action}` })),
        ],
      },
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ revision: before + 1, changed: true });
    for (const pdp of stack.pdps) {
      for (const action of actions) {
        const decided = await decide(pdp, action, before + 1);
        expect(decided.body.eventAllowed).toBe(false);
        // No revision in between: the replica went from `before` to the set's revision with all three.
        expect(decided.headers.get('policy-revision')).toBe(String(before + 1));
      }
    }
    await waitFor(() => seen.some((change) => change.revision === before + 1), { what: 'the change on the changes subject' });
    expect(seen.filter((change) => change.revision > before)).toEqual([
      expect.objectContaining({ revision: before + 1, type: 'documents', revoke: [], deploy: actions.map((action) => expect.objectContaining({ id: `urn:policy:acme:no-${action}`, deployedAt: before + 1 })) }),
    ]);
  }, 60_000);

  it('changes nothing, at pap or at any replica, when one item of the set is broken', async () => {
    const before = await papRevision();
    const answer = await call('POST', `${stack.pap.url}/ws/changes`, {
      token,
      json: {
        changes: [
          { op: 'revoke', kind: 'policy', id: 'urn:policy:acme:no-print' },
          { op: 'add', kind: 'policy', xml: inhibitAll('acme', 'no-fax', 'fax') },
          { op: 'add', kind: 'policy', xml: inhibitAll('acme', 'no-mail', 'mail').replace('</policy>', '') },
          { op: 'deploy', kind: 'policy', id: 'urn:policy:acme:no-fax' },
        ],
      },
    });
    expect(answer.status).toBe(400);
    expect(answer.body.errors[0].path).toBe('changes[2].xml');
    expect(await papRevision()).toBe(before);
    expect((await call('GET', `${stack.pap.url}/ws/policy/urn:policy:acme:no-fax`, { token })).status).toBe(404);
    expect((await call('GET', `${stack.pap.url}/ws/policy/urn:policy:acme:no-print/status`, { token })).body).toBe(true);
    for (const pdp of stack.pdps) {
      const status = await call('GET', `${pdp.url}/status`);
      expect(status.body.revision).toBe(before);
      expect((await decide(pdp, 'print', before)).body.eventAllowed).toBe(false);
      expect((await decide(pdp, 'fax', before)).body.eventAllowed).toBe(true);
    }
    expect(seen.filter((change) => change.revision > before)).toEqual([]);
  }, 60_000);
});
