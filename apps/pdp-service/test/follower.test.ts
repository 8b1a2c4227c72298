import { loadPolicy, type LoadOutcome } from '@custos/policy-engine';
import { waitFor } from '@custos/test-kit';
import { createPdpMetrics, type PdpMetrics } from '../src/metrics';
import { PolicySetFollower, type ActivePolicySet } from '../src/policy-set/follower';
import { SnapshotError, type PolicySnapshot } from '@custos/contracts';
import { FakeTransport, deferred } from './support/fake-transport';
import { memoryLogger } from './support/logger';
import { allowAll, brokenPolicy, inhibitAll } from './support/policies';

const A = 'urn:action:acme:show';
const P1 = 'urn:policy:acme:p1';
const P2 = 'urn:policy:acme:p2';
const P3 = 'urn:policy:acme:p3';
const p1 = { id: P1, xml: inhibitAll(P1, A) };
const p2 = { id: P2, xml: allowAll(P2, 'urn:action:acme:other') };
const p3 = { id: P3, xml: inhibitAll(P3, 'urn:action:acme:third') };

async function metricValue(metrics: PdpMetrics, name: string, labels: Record<string, string> = {}): Promise<number> {
  const metric = (await metrics.registry.getMetricsAsJSON()).find((m) => m.name === name);
  const values = (metric?.values ?? []) as Array<{ value: number; labels: Record<string, string | number> }>;
  return values
    .filter((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l))
    .reduce((sum, v) => sum + v.value, 0);
}

describe('PolicySetFollower', () => {
  let transport: FakeTransport;
  let metrics: PdpMetrics;
  let follower: PolicySetFollower;
  let compiled: string[];
  let log: ReturnType<typeof memoryLogger>;

  const build = (options: { resyncIntervalMs?: number; compile?: (xml: string) => LoadOutcome } = {}) => {
    follower = new PolicySetFollower({
      transport,
      logger: log.logger,
      metrics,
      resyncIntervalMs: options.resyncIntervalMs ?? 0,
      backoff: { initialMs: 5, maxMs: 20 },
      compile:
        options.compile ??
        ((xml) => {
          compiled.push(xml);
          return loadPolicy(xml);
        }),
    });
    return follower;
  };

  const ready = async (revision: number) => {
    await waitFor(() => follower.active?.revision === revision, { timeoutMs: 5000, what: `revision ${revision}` });
    await follower.idle();
    return follower.active!;
  };

  beforeEach(() => {
    transport = new FakeTransport();
    metrics = createPdpMetrics(false);
    compiled = [];
    log = memoryLogger();
  });

  afterEach(async () => {
    await follower?.stop();
  });

  it('subscribes to changes before it asks for the snapshot, and is ready only once the snapshot is active', async () => {
    const answer = deferred<{ revision: number; policies: Array<{ id: string; xml: string }> }>();
    transport.answers.push(answer);
    build();
    await follower.start();
    await waitFor(() => transport.snapshotRequests === 1, { what: 'a snapshot request' });
    expect(transport.calls).toEqual(['subscribe', 'snapshot']);
    expect(follower.ready).toBe(false);
    expect(follower.status()).toMatchObject({ ready: false, revision: null, policies: 0 });
    answer.resolve({ revision: 4, policies: [p1, p2] });
    const active = await ready(4);
    expect(active.set.size).toBe(2);
    expect(active.set.has(P1) && active.set.has(P2)).toBe(true);
    expect(follower.status()).toMatchObject({ ready: true, revision: 4, policies: 2 });
    expect(follower.status().lastSyncAt).not.toBeNull();
    expect(await metricValue(metrics, 'policy_revision')).toBe(4);
    expect(await metricValue(metrics, 'resyncs_total', { reason: 'start' })).toBe(1);
  });

  it('buffers changes that arrive while the snapshot loads and applies the newer ones afterwards', async () => {
    const answer = deferred<{ revision: number; policies: Array<{ id: string; xml: string }> }>();
    transport.answers.push(answer);
    build();
    await follower.start();
    await waitFor(() => transport.snapshotRequests === 1);
    transport.emit({ revision: 5, type: 'deploy', policy: p1 }); // already in the snapshot
    transport.emit({ revision: 6, type: 'deploy', policy: p3 });
    transport.emit({ revision: 7, type: 'revoke', policyId: P2 });
    expect(follower.status().pendingChanges).toBe(3);
    answer.resolve({ revision: 5, policies: [p1, p2] });
    const active = await ready(7);
    expect([active.set.has(P1), active.set.has(P2), active.set.has(P3)]).toEqual([true, false, true]);
    expect(transport.snapshotRequests).toBe(1);
    expect(follower.status().pendingChanges).toBe(0);
  });

  it('applies changes in revision order and ignores duplicates', async () => {
    transport.state = { revision: 1, policies: [p1] };
    build();
    await follower.start();
    await ready(1);
    transport.emit({ revision: 2, type: 'deploy', policy: p2 });
    transport.emit({ revision: 3, type: 'revoke', policyId: P2 });
    transport.emit({ revision: 2, type: 'deploy', policy: p2 }); // duplicate delivery
    transport.emit({ revision: 3, type: 'revoke', policyId: P2 });
    transport.emit({ revision: 1, type: 'revoke', policyId: P1 });
    const active = await ready(3);
    expect(active.set.has(P1)).toBe(true);
    expect(active.set.has(P2)).toBe(false);
    expect(transport.snapshotRequests).toBe(1);
    const status = follower.status();
    expect(status.lastChangeAt).not.toBeNull();
    expect(status.lastAppliedAt).not.toBeNull();
    expect(status.lagMs).toBeGreaterThanOrEqual(0);
  });

  it('takes a fresh snapshot on a gap instead of applying out of order', async () => {
    transport.state = { revision: 1, policies: [p1] };
    build();
    await follower.start();
    await ready(1);
    transport.state = { revision: 3, policies: [p1, p2] }; // revision 2 never arrives as a message
    transport.emit({ revision: 3, type: 'deploy', policy: p2 });
    const active = await ready(3);
    expect(active.set.has(P2)).toBe(true);
    expect(transport.snapshotRequests).toBe(2);
    expect(await metricValue(metrics, 'resyncs_total', { reason: 'gap' })).toBe(1);
    // Later changes continue from the snapshot's revision.
    transport.emit({ revision: 4, type: 'revoke', policyId: P1 });
    expect((await ready(4)).set.has(P1)).toBe(false);
    expect(transport.snapshotRequests).toBe(2);
  });

  it('keeps a change that is newer than the gap snapshot and applies it after', async () => {
    transport.state = { revision: 1, policies: [] };
    build();
    await follower.start();
    await ready(1);
    transport.state = { revision: 2, policies: [p1] }; // the snapshot covers 2 only
    transport.emit({ revision: 3, type: 'deploy', policy: p2 });
    transport.emit({ revision: 2, type: 'deploy', policy: p1 });
    const active = await ready(3);
    expect(active.set.has(P1) && active.set.has(P2)).toBe(true);
  });

  it('fetches a snapshot when a resync message arrives', async () => {
    transport.state = { revision: 1, policies: [] };
    build();
    await follower.start();
    await ready(1);
    transport.state = { revision: 2, policies: [p1] };
    transport.emit({ revision: 2, type: 'resync' });
    const active = await ready(2);
    expect(active.set.has(P1)).toBe(true);
    expect(await metricValue(metrics, 'resyncs_total', { reason: 'message' })).toBe(1);
  });

  it('backs off instead of spinning when the snapshot does not cover the gap', async () => {
    transport.state = { revision: 1, policies: [] };
    build();
    await follower.start();
    await ready(1);
    transport.emit({ revision: 5, type: 'revoke', policyId: P1 }); // pap's snapshot still says 1
    await waitFor(() => transport.snapshotRequests >= 4, { what: 'repeated snapshots' });
    expect(follower.active?.revision).toBe(1);
    // Backoff 5 ms doubling (±20 %): the third retry waits about 20 ms, the one before about 10 ms.
    const [, , third, fourth] = transport.requestTimes as [number, number, number, number];
    expect(fourth - third).toBeGreaterThanOrEqual(7);
    transport.state = { revision: 5, policies: [p2] };
    expect((await ready(5)).set.has(P2)).toBe(true);
    const requests = transport.snapshotRequests;
    // Once caught up, nothing asks for more snapshots.
    await follower.idle();
    expect(transport.snapshotRequests).toBe(requests);
  });

  it('keeps the last good set when a deployed policy fails to compile', async () => {
    transport.state = { revision: 1, policies: [p1] };
    build();
    await follower.start();
    const before = await ready(1);
    transport.emit({ revision: 2, type: 'deploy', policy: { id: P2, xml: brokenPolicy(P2, A) } });
    await waitFor(async () => (await metricValue(metrics, 'policy_compile_failures_total', { source: 'change' })) === 1, {
      what: 'a compile failure',
    });
    await follower.idle();
    expect(follower.active).toBe(before);
    expect(follower.active?.set.has(P2)).toBe(false);
    const line = log.lines.find((l) => l.msg === 'policy failed to compile; the last good set stays active');
    expect(line).toMatchObject({ policyId: P2, source: 'change', level: 'error' });
  });

  it('keeps the last good set when a snapshot holds a policy that fails to compile', async () => {
    transport.state = { revision: 1, policies: [p1] };
    build();
    await follower.start();
    const before = await ready(1);
    transport.state = { revision: 3, policies: [p1, { id: P2, xml: brokenPolicy(P2, A) }] };
    transport.emit({ revision: 3, type: 'revoke', policyId: P3 });
    await waitFor(async () => (await metricValue(metrics, 'policy_compile_failures_total', { source: 'snapshot' })) >= 1);
    expect(follower.active).toBe(before);
    // Once pap's set compiles again, the replica moves on.
    transport.state = { revision: 4, policies: [p1, p2] };
    follower.resync('periodic');
    expect((await ready(4)).set.has(P2)).toBe(true);
  });

  describe('a snapshot whose documents arrive before it is complete (parts)', () => {
    const partsOfNextSnapshot = async (answer: ReturnType<typeof deferred<PolicySnapshot>>) => {
      transport.answers.push(answer);
      follower.resync('periodic');
      await waitFor(() => transport.snapshotRequests === 2, { what: 'the second snapshot request' });
      const sink = transport.sinks[1];
      if (sink === undefined) throw new Error('the follower gave the transport no sink');
      return sink;
    };

    it('compiles each part as it arrives and swaps the set in only once the whole snapshot is in', async () => {
      transport.state = { revision: 1, policies: [p1] };
      build();
      await follower.start();
      const before = await ready(1);
      const answer = deferred<PolicySnapshot>();
      const sink = await partsOfNextSnapshot(answer);
      sink([p2]);
      expect(compiled).toEqual([p1.xml, p2.xml]);
      expect(follower.active).toBe(before);
      sink([p1]);
      // Unchanged since the active set: reused, not compiled again.
      expect(compiled).toEqual([p1.xml, p2.xml]);
      answer.resolve({ revision: 3, policies: [p3] });
      const after = await ready(3);
      expect(compiled).toEqual([p1.xml, p2.xml, p3.xml]);
      expect(after.set.size === 3 && after.set.has(P1) && after.set.has(P2) && after.set.has(P3)).toBe(true);
      expect(after.set.get(P1)).toBe(before.set.get(P1));
      expect(log.lines.find((l) => l.msg === 'policy snapshot active' && l.revision === 3)).toMatchObject({ compiled: 2, reused: 1 });
    });

    it('keeps the last good set when the snapshot fails after some parts were compiled', async () => {
      transport.state = { revision: 1, policies: [p1] };
      build();
      await follower.start();
      const before = await ready(1);
      const answer = deferred<PolicySnapshot>();
      const sink = await partsOfNextSnapshot(answer);
      sink([p2]);
      const retry = deferred<PolicySnapshot>();
      transport.answers.push(retry);
      answer.reject(new SnapshotError('snapshot part 2 arrived where part 1 was expected'));
      await waitFor(() => transport.snapshotRequests === 3, { what: 'the retry' });
      expect(follower.active).toBe(before);
      retry.resolve({ revision: 2, policies: [p1, p3] });
      const after = await ready(2);
      // What the failed attempt compiled is not part of any set.
      expect(after.set.has(P2)).toBe(false);
      expect(after.set.size === 2 && after.set.has(P1) && after.set.has(P3)).toBe(true);
    });

    it('tells of a part that does not compile only once the snapshot is in and newer than the active set', async () => {
      transport.state = { revision: 4, policies: [p1] };
      build();
      await follower.start();
      const before = await ready(4);
      const stale = deferred<PolicySnapshot>();
      (await partsOfNextSnapshot(stale))([{ id: P2, xml: brokenPolicy(P2, A) }]);
      stale.resolve({ revision: 4, policies: [] });
      await follower.idle();
      expect(follower.active).toBe(before);
      expect(await metricValue(metrics, 'policy_compile_failures_total')).toBe(0);
      const newer = deferred<PolicySnapshot>();
      transport.answers.push(newer);
      follower.resync('periodic');
      await waitFor(() => transport.snapshotRequests === 3, { what: 'the third snapshot request' });
      transport.sinks[2]?.([{ id: P2, xml: brokenPolicy(P2, A) }, p3]);
      // The first failure ends the build: nothing after it is compiled.
      expect(compiled).toEqual([p1.xml, brokenPolicy(P2, A), brokenPolicy(P2, A)]);
      newer.resolve({ revision: 6, policies: [] });
      await waitFor(async () => (await metricValue(metrics, 'policy_compile_failures_total', { source: 'snapshot' })) === 1, { what: 'a compile failure' });
      await follower.idle();
      expect(follower.active).toBe(before);
      const line = log.lines.find((l) => l.msg === 'policy failed to compile; the last good set stays active');
      expect(line).toMatchObject({ policyId: P2, source: 'snapshot', revision: 6, active: 4 });
    });
  });

  it('stays not ready when the first snapshot fails to compile', async () => {
    transport.state = { revision: 2, policies: [{ id: P1, xml: brokenPolicy(P1, A) }] };
    build();
    await follower.start();
    await waitFor(async () => (await metricValue(metrics, 'policy_compile_failures_total')) === 1);
    await follower.idle();
    expect(follower.ready).toBe(false);
    transport.emit({ revision: 3, type: 'revoke', policyId: P1 });
    await follower.idle();
    expect(follower.ready).toBe(false);
    transport.state = { revision: 3, policies: [] };
    follower.resync('periodic');
    expect((await ready(3)).set.size).toBe(0);
  });

  it('rejects a policy whose xml declares another id than the message', async () => {
    transport.state = { revision: 1, policies: [] };
    build();
    await follower.start();
    const before = await ready(1);
    transport.emit({ revision: 2, type: 'deploy', policy: { id: P2, xml: p1.xml } });
    await waitFor(async () => (await metricValue(metrics, 'policy_compile_failures_total')) === 1);
    await follower.idle();
    expect(follower.active).toBe(before);
  });

  it('builds a new set beside the active one and swaps it in at once', async () => {
    transport.state = { revision: 1, policies: [p1] };
    const seenDuringCompile: Array<ActivePolicySet | undefined> = [];
    build({
      compile: (xml) => {
        seenDuringCompile.push(follower.active);
        return loadPolicy(xml);
      },
    });
    await follower.start();
    const first = await ready(1);
    seenDuringCompile.length = 0;
    transport.state = { revision: 5, policies: [p2, p3] };
    follower.resync('periodic');
    const second = await ready(5);
    // While the new set was being compiled, decisions still saw the complete old one.
    expect(seenDuringCompile).toHaveLength(2);
    for (const seen of seenDuringCompile) expect(seen).toBe(first);
    // Sets are immutable: whoever holds the old one keeps a consistent view.
    expect(first.revision).toBe(1);
    expect([first.set.has(P1), first.set.has(P2), first.set.size]).toEqual([true, false, 1]);
    expect([second.set.has(P1), second.set.has(P2), second.set.has(P3)]).toEqual([false, true, true]);
  });

  it('reuses compiled policies whose xml did not change', async () => {
    transport.state = { revision: 1, policies: [p1, p2] };
    build();
    await follower.start();
    await ready(1);
    expect(compiled).toHaveLength(2);
    const changed = { id: P2, xml: inhibitAll(P2, 'urn:action:acme:other') };
    transport.state = { revision: 2, policies: [p1, changed, p3] };
    follower.resync('periodic');
    await ready(2);
    expect(compiled.slice(2)).toEqual([changed.xml, p3.xml]);
  });

  it('skips the swap when a periodic snapshot has the active revision', async () => {
    transport.state = { revision: 3, policies: [p1] };
    build({ resyncIntervalMs: 100 });
    await follower.start();
    const first = await ready(3);
    await waitFor(() => transport.snapshotRequests >= 3, { what: 'periodic snapshots' });
    await follower.idle();
    expect(follower.active).toBe(first);
    expect(compiled).toHaveLength(1);
    expect(await metricValue(metrics, 'resyncs_total', { reason: 'periodic' })).toBeGreaterThanOrEqual(2);
  });

  it('asks with the active revision, and takes an unchanged answer as the check it is: no documents, no swap', async () => {
    transport.state = { revision: 3, policies: [p1] };
    transport.answersUnchanged = true;
    build();
    await follower.start();
    const first = await ready(3);
    follower.resync('periodic');
    await follower.idle();
    expect(transport.knowns).toEqual([undefined, 3]);
    expect(follower.active).toBe(first);
    expect(compiled).toHaveLength(1);
    expect(await metricValue(metrics, 'resyncs_unchanged_total', { reason: 'periodic' })).toBe(1);
    expect(follower.status().lastSyncAt).not.toBeNull();
    // Once pap moved on, the same check brings the whole set.
    transport.state = { revision: 4, policies: [p1, p2] };
    follower.resync('periodic');
    await ready(4);
    expect(transport.knowns).toEqual([undefined, 3, 3]);
    expect(follower.status().policies).toBe(2);
    expect(await metricValue(metrics, 'resyncs_unchanged_total', { reason: 'periodic' })).toBe(1);
  });

  it('keeps the active set when a snapshot is older than it', async () => {
    transport.state = { revision: 3, policies: [p1] };
    build();
    await follower.start();
    const first = await ready(3);
    transport.state = { revision: 2, policies: [] };
    follower.resync('periodic');
    await waitFor(() => transport.snapshotRequests === 2);
    await follower.idle();
    expect(follower.active).toBe(first);
  });

  it('takes a snapshot after a reconnect', async () => {
    transport.state = { revision: 1, policies: [] };
    build();
    await follower.start();
    await ready(1);
    transport.state = { revision: 2, policies: [p1] }; // the change message was lost while disconnected
    transport.reconnect();
    expect((await ready(2)).set.has(P1)).toBe(true);
    expect(await metricValue(metrics, 'resyncs_total', { reason: 'reconnect' })).toBe(1);
  });

  it('retries a failed snapshot with backoff', async () => {
    transport.answers.push(new SnapshotError('no snapshot chunk arrived within 5000 ms'), new SnapshotError('out of order'));
    transport.state = { revision: 7, policies: [p1] };
    build();
    await follower.start();
    await ready(7);
    expect(transport.snapshotRequests).toBe(3);
    expect(await metricValue(metrics, 'resyncs_total', { reason: 'retry' })).toBe(2);
    const warnings = log.lines.filter((l) => l.msg === 'policy snapshot could not be fetched; retrying');
    expect(warnings.map((l) => [l.problem, l.attempt])).toEqual([
      ['no snapshot chunk arrived within 5000 ms', 1],
      ['out of order', 2],
    ]);
  });

  it('resolves revision waiters when their revision becomes active, or false after the wait', async () => {
    transport.state = { revision: 1, policies: [] };
    build();
    await follower.start();
    await ready(1);
    expect(await follower.waitForRevision(1, 0)).toBe(true);
    const two = follower.waitForRevision(2, 5000);
    const three = follower.waitForRevision(3, 5000);
    const late = follower.waitForRevision(9, 50);
    transport.emit({ revision: 2, type: 'deploy', policy: p1 });
    expect(await two).toBe(true);
    expect(await late).toBe(false);
    transport.emit({ revision: 3, type: 'deploy', policy: p2 });
    expect(await three).toBe(true);
    const never = follower.waitForRevision(10, 60_000);
    await follower.stop();
    expect(await never).toBe(false);
    expect(transport.closed).toBe(true);
  });
});
