import { LocalPolicyChannel, SnapshotError, encodeChange, encodeSnapshotAnswer, type PolicyChange, type PolicySnapshot } from '@custos/contracts';
import { waitFor } from '@custos/test-kit';
import { PolicySetFollower } from '../src/policy-set/follower';
import { LocalPolicyTransport } from '../src/policy-set/local-transport';
import { memoryLogger } from './support/logger';
import { allowAll, inhibitAll } from './support/policies';

const P1 = 'urn:policy:acme:p1';
const P2 = 'urn:policy:acme:p2';
const P3 = 'urn:policy:acme:p3';
const p1 = { id: P1, xml: inhibitAll(P1, 'urn:action:acme:show') };
const p2 = { id: P2, xml: allowAll(P2, 'urn:action:acme:other') };
const p3 = { id: P3, xml: inhibitAll(P3, 'urn:action:acme:third') };

/** What pap's local publisher sends: the change's encoded bytes. */
const publish = (channel: LocalPolicyChannel, change: PolicyChange) => channel.publishChange(encodeChange(change, Number.MAX_SAFE_INTEGER).data);

describe('the follower over an in-process channel (embedded mode)', () => {
  let channel: LocalPolicyChannel;
  let follower: PolicySetFollower | undefined;
  let snapshot: PolicySnapshot;
  let requests: number;
  let log: ReturnType<typeof memoryLogger>;

  const follow = async () => {
    follower = new PolicySetFollower({
      transport: new LocalPolicyTransport(channel, { logger: log.logger }),
      logger: log.logger,
      resyncIntervalMs: 0,
      backoff: { initialMs: 5, maxMs: 20 },
    });
    await follower.start();
    return follower;
  };
  const at = (revision: number) => waitFor(() => (follower?.active?.revision === revision ? follower.active : undefined), { what: `revision ${revision}` });

  beforeEach(() => {
    channel = new LocalPolicyChannel();
    requests = 0;
    log = memoryLogger();
    snapshot = { revision: 1, policies: [p1], components: [] };
    channel.answerSnapshots(() => {
      requests++;
      // As pap answers: the messages it would send over NATS.
      return Promise.resolve(encodeSnapshotAnswer(snapshot, 64 * 1024));
    });
  });

  afterEach(async () => {
    await follower?.stop();
    follower = undefined;
  });

  it('starts from the snapshot and applies the next changes as they are published', async () => {
    await follow();
    expect((await at(1)).set.has(P1)).toBe(true);
    publish(channel, { revision: 2, type: 'deploy', policy: p2 });
    publish(channel, { revision: 3, type: 'revoke', policyId: P1 });
    const active = await at(3);
    expect([active.set.has(P1), active.set.has(P2)]).toEqual([false, true]);
    expect(requests).toBe(1);
  });

  it('takes a snapshot for a gap, as over NATS', async () => {
    await follow();
    await at(1);
    snapshot = { revision: 4, policies: [p1, p2, p3], components: [] };
    publish(channel, { revision: 4, type: 'deploy', policy: p3 });
    const active = await at(4);
    expect(active.set.size).toBe(3);
    expect(requests).toBe(2);
  });

  it('ignores an unreadable change and logs it', async () => {
    await follow();
    await at(1);
    channel.publishChange(new TextEncoder().encode('{"revision":'));
    await waitFor(() => log.lines.some((line) => line.msg === 'unreadable policy change ignored'), { what: 'the warning' });
    expect(follower?.active?.revision).toBe(1);
  });

  it('reports a channel nobody answers on, and a pap that answers too late, as snapshot errors', async () => {
    await expect(new LocalPolicyTransport(new LocalPolicyChannel(), { logger: log.logger }).fetchSnapshot()).rejects.toThrow(
      new SnapshotError('nobody answers snapshot requests'),
    );
    const silent = new LocalPolicyChannel();
    silent.answerSnapshots(() => new Promise<Uint8Array[]>(() => undefined));
    await expect(new LocalPolicyTransport(silent, { logger: log.logger, snapshotTimeoutMs: 50 }).fetchSnapshot()).rejects.toThrow(
      new SnapshotError('no snapshot arrived within 50 ms'),
    );
  });

  it('reads a snapshot answer of several parts as over NATS, handing each part\'s documents on as it is read', async () => {
    const large = new LocalPolicyChannel();
    const sent: PolicySnapshot = { revision: 7, policies: [p1, p2, p3], components: [] };
    let messages = 0;
    large.answerSnapshots(() => {
      // Room for about one document per part.
      const answer = encodeSnapshotAnswer(sent, 4096 + JSON.stringify(p1).length + 200);
      messages = answer.length;
      return Promise.resolve(answer);
    });
    const handed: string[][] = [];
    const received = await new LocalPolicyTransport(large, { logger: log.logger }).fetchSnapshot((policies) => handed.push(policies.map((policy) => policy.id)));
    expect(messages).toBeGreaterThan(1);
    expect(handed).toHaveLength(messages);
    expect(handed.flat()).toEqual([P1, P2, P3]);
    expect(received).toEqual({ revision: 7, policies: [], components: [] });
  });

  it('stops hearing changes once closed', async () => {
    const transport = new LocalPolicyTransport(channel, { logger: log.logger });
    const heard: number[] = [];
    await transport.subscribeChanges((change) => heard.push(change.revision));
    publish(channel, { revision: 1, type: 'revoke', policyId: P1 });
    expect(transport.connected).toBe(true);
    await transport.close();
    publish(channel, { revision: 2, type: 'revoke', policyId: P2 });
    expect(heard).toEqual([1]);
    expect(transport.connected).toBe(false);
  });
});
