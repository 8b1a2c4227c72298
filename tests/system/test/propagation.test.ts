import { connect, type NatsConnection } from 'nats';
import { policySubjects, type PolicyChange } from '@custos/contracts';
import { call, startOwnNatsServer, startStack, waitFor, type OwnNatsServer, type RunningService, type Stack } from '@custos/test-kit';
import { event, inhibitAll } from './policies';

/**
 * The propagation contract end to end: pap on PostgreSQL, three pdp replicas as processes,
 * a private NATS server that the test can stop and start.
 */
describe('deployed set propagation across replicas', () => {
  let nats: OwnNatsServer;
  let stack: Stack;
  let token: string;

  beforeAll(async () => {
    nats = await startOwnNatsServer();
    stack = await startStack({ natsUrl: nats.url, replicas: 3 });
    token = await stack.adminToken();
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
    await nats?.destroy();
  }, 60_000);

  const decide = (pdp: RunningService, action: string, minRevision?: number) =>
    call('POST', `${pdp.url}/event`, {
      token,
      json: event('acme', action),
      headers: minRevision === undefined ? {} : { 'Min-Policy-Revision': String(minRevision) },
    });

  async function addAndDeploy(name: string, action: string): Promise<number> {
    const added = await call('POST', `${stack.pap.url}/ws/policy`, { token, xml: inhibitAll('acme', name, action) });
    expect(added.status).toBe(201);
    const deployed = await call('POST', `${stack.pap.url}/ws/policy/urn:policy:acme:${name}/deploy`, { token });
    expect(deployed.status).toBe(200);
    expect(deployed.body).toBe(true);
    return Number(deployed.headers.get('policy-revision'));
  }

  it('starts with every replica allowing by default', async () => {
    for (const pdp of stack.pdps) {
      const answer = await decide(pdp, 'print');
      expect(answer.status).toBe(200);
      expect(answer.body.eventAllowed).toBe(true);
      expect(answer.headers.get('policy-revision')).toBe('0');
    }
  });

  it('makes every replica decide by a deployed policy, and stop after revoke', async () => {
    const revision = await addAndDeploy('no-print', 'print');
    expect(revision).toBe(1);
    for (const pdp of stack.pdps) {
      const answer = await decide(pdp, 'print', revision);
      expect(answer.status).toBe(200);
      expect(answer.body.eventAllowed).toBe(false);
      expect(Number(answer.headers.get('policy-revision'))).toBeGreaterThanOrEqual(revision);
    }
    const revoked = await call('GET', `${stack.pap.url}/ws/policy/urn:policy:acme:no-print/revoke`, { token });
    expect(revoked.body).toBe(true);
    const afterRevoke = Number(revoked.headers.get('policy-revision'));
    expect(afterRevoke).toBe(revision + 1);
    for (const pdp of stack.pdps) {
      const answer = await decide(pdp, 'print', afterRevoke);
      expect(answer.body.eventAllowed).toBe(true);
    }
  });

  it('follows changes without being asked for a revision', async () => {
    const revision = await addAndDeploy('no-scan', 'scan');
    for (const pdp of stack.pdps) {
      await waitFor(
        async () => {
          const status = await call('GET', `${pdp.url}/status`);
          return status.body.revision >= revision;
        },
        { timeoutMs: 10_000, what: `${pdp.url} to apply revision ${revision}` },
      );
      expect((await decide(pdp, 'scan')).body.eventAllowed).toBe(false);
    }
  });

  it('lets a replica that was down catch up when it comes back', async () => {
    const victim = stack.pdps[2]!;
    await victim.stop();
    const revision = await addAndDeploy('no-copy', 'copy');
    const back = await stack.startPdp(victim.port);
    stack.pdps[2] = back;
    const answer = await decide(back, 'copy');
    expect(answer.body.eventAllowed).toBe(false);
    expect(Number(answer.headers.get('policy-revision'))).toBeGreaterThanOrEqual(revision);
  }, 60_000);

  it('delivers a change made while NATS was down once NATS is back (outbox)', async () => {
    await nats.stop();
    const added = await call('POST', `${stack.pap.url}/ws/policy`, { token, xml: inhibitAll('acme', 'no-fax', 'fax') });
    expect(added.status).toBe(201);
    const deployed = await call('POST', `${stack.pap.url}/ws/policy/urn:policy:acme:no-fax/deploy`, { token });
    expect(deployed.body).toBe(true);
    const revision = Number(deployed.headers.get('policy-revision'));
    // Replicas keep answering from their last set while NATS is away.
    expect((await decide(stack.pdps[0]!, 'fax')).body.eventAllowed).toBe(true);

    await nats.start();
    for (const pdp of stack.pdps) {
      await waitFor(async () => (await decide(pdp, 'fax')).body.eventAllowed === false, {
        timeoutMs: 40_000,
        what: `${pdp.url} to inhibit fax after NATS came back`,
      });
    }
    // The change itself was published from the outbox, not only picked up by a resync.
    const observer: NatsConnection = await connect({ servers: nats.url });
    try {
      const subjects = policySubjects(stack.natsPrefix);
      const jsm = await observer.jetstreamManager();
      await waitFor(
        async () => {
          const last = await jsm.streams.getMessage(subjects.stream, { last_by_subj: subjects.changes });
          const change = JSON.parse(new TextDecoder().decode(last.data)) as PolicyChange;
          return change.revision >= revision;
        },
        { timeoutMs: 20_000, what: `revision ${revision} in the change stream` },
      );
    } finally {
      await observer.close();
    }
  }, 90_000);
});
