import type { PolicyChange } from '@custos/contracts';
import { waitFor } from '@custos/test-kit';
import { createPdpMetrics, type PdpMetrics } from '../src/metrics';
import { PolicySetFollower } from '../src/policy-set/follower';
import { ReplayingTransport } from './support/fake-transport';
import { memoryLogger } from './support/logger';
import { allowAll, inhibitAll } from './support/policies';

const P1 = 'urn:policy:acme:p1';
const P2 = 'urn:policy:acme:p2';
const P3 = 'urn:policy:acme:p3';
const deploy = (revision: number, id: string): PolicyChange => ({ revision, type: 'deploy', policy: { id, xml: inhibitAll(id, `urn:action:acme:${revision}`) } });

async function resyncs(metrics: PdpMetrics, reason: string): Promise<number> {
  const values = (await metrics.registry.getSingleMetric('resyncs_total')?.get())?.values ?? [];
  return values.filter((v) => v.labels.reason === reason).reduce((sum, v) => sum + v.value, 0);
}

describe('replaying missed changes from the stream', () => {
  let transport: ReplayingTransport;
  let metrics: PdpMetrics;
  let log: ReturnType<typeof memoryLogger>;
  let follower: PolicySetFollower;

  beforeEach(async () => {
    transport = new ReplayingTransport();
    metrics = createPdpMetrics(false);
    log = memoryLogger();
    follower = new PolicySetFollower({ transport, logger: log.logger, metrics, resyncIntervalMs: 0, backoff: { initialMs: 5, maxMs: 20 } });
    transport.state = { revision: 1, policies: [{ id: P1, xml: allowAll(P1, 'urn:action:acme:x') }] };
    await follower.start();
    await waitFor(() => follower.active?.revision === 1, { what: 'the first snapshot' });
    await follower.idle();
  });

  afterEach(async () => {
    await follower.stop();
  });

  it('fills a gap from the stream without a snapshot', async () => {
    transport.stream.push(deploy(2, P2), deploy(3, P3), deploy(4, P1));
    transport.emit(deploy(4, P1)); // 2 and 3 never arrived on the subscription
    await waitFor(() => follower.active?.revision === 4, { what: 'revision 4' });
    await follower.idle();
    const active = follower.active;
    expect([active?.set.has(P1), active?.set.has(P2), active?.set.has(P3)]).toEqual([true, true, true]);
    expect(transport.replays).toEqual([1]);
    expect(transport.snapshotRequests).toBe(1);
    expect(await resyncs(metrics, 'gap')).toBe(0);
    expect(log.lines.find((l) => l.msg === 'policy changes replayed from the stream')).toMatchObject({ from: 2, to: 4, changes: 3, active: 1 });
  });

  it('takes a snapshot when the stream does not hold the missing change', async () => {
    transport.stream.push(deploy(3, P3)); // 2 aged out of the stream
    transport.state = { revision: 3, policies: [{ id: P2, xml: allowAll(P2, 'urn:action:acme:y') }, { id: P3, xml: inhibitAll(P3, 'urn:action:acme:3') }] };
    transport.emit(deploy(3, P3));
    await waitFor(() => follower.active?.revision === 3, { what: 'revision 3' });
    expect(follower.active?.set.has(P2)).toBe(true);
    expect(transport.calls.slice(-2)).toEqual(['replay', 'snapshot']);
    expect(await resyncs(metrics, 'gap')).toBe(1);
  });

  it('takes a snapshot when the stream cannot be read', async () => {
    transport.failing = true;
    transport.state = { revision: 2, policies: [{ id: P2, xml: allowAll(P2, 'urn:action:acme:y') }] };
    transport.emit(deploy(2, P2));
    transport.emit(deploy(3, P3));
    await waitFor(() => follower.active?.revision === 3, { what: 'revision 3' });
    expect(transport.snapshotRequests).toBe(1);
    // 2 arrived in order; 3 followed it: no gap, no replay.
    expect(transport.replays).toEqual([]);
    transport.emit(deploy(5, P1));
    transport.state = { revision: 5, policies: [] };
    await waitFor(() => follower.active?.revision === 5, { what: 'revision 5' });
    expect(transport.replays).toEqual([3]);
    expect(transport.snapshotRequests).toBe(2);
  });

  it('catches up from the stream after a reconnect while pap does not answer snapshots', async () => {
    transport.stream.push(deploy(2, P2), deploy(3, P3));
    for (let i = 0; i < 50; i++) transport.answers.push(new Error('nobody answers snapshot requests'));
    transport.reconnect();
    await waitFor(() => follower.active?.revision === 3, { what: 'the replayed changes' });
    expect(follower.active?.set.has(P3)).toBe(true);
    expect(transport.replays).toEqual([1]);
    await waitFor(() => transport.snapshotRequests >= 3, { what: 'snapshot attempts going on' });
    expect(await resyncs(metrics, 'reconnect')).toBe(1);
    // Changes keep flowing between the failing snapshot attempts.
    transport.emit(deploy(4, P1));
    await waitFor(() => follower.active?.revision === 4, { what: 'a change between snapshot attempts' });
    expect(transport.answers.length).toBeGreaterThan(0);
  });
});
