import { loadPolicy } from '@custos/policy-engine';
import { waitFor } from '@custos/test-kit';
import { SnapshotError, type PolicySnapshot } from '@custos/contracts';
import type { ActivePolicySet } from '../src/policy-set/follower';
import { A, P1, P2, P3, p1, p2, p3, metricValue, useFollowerBench } from './support/follower-bench';
import { deferred } from './support/fake-transport';
import { brokenPolicy, inhibitAll } from './support/policies';

/** How the follower builds each new set beside the active one, reuses what did not change, and keeps the last good set. */
describe('PolicySetFollower: building and swapping sets', () => {
  const bench = useFollowerBench();

  it('keeps the last good set when a deployed policy fails to compile', async () => {
    const before = await bench.startAt({ revision: 1, policies: [p1] });
    bench.transport.emit({ revision: 2, type: 'deploy', policy: { id: P2, xml: brokenPolicy(P2, A) } });
    await waitFor(async () => (await metricValue(bench.metrics, 'policy_compile_failures_total', { source: 'change' })) === 1, {
      what: 'a compile failure',
    });
    await bench.follower.idle();
    expect(bench.follower.active).toBe(before);
    expect(bench.follower.active?.set.has(P2)).toBe(false);
    const line = bench.log.lines.find((l) => l.msg === 'policy failed to compile; the last good set stays active');
    expect(line).toMatchObject({ policyId: P2, source: 'change', level: 'error' });
  });

  it('keeps the last good set when a snapshot holds a policy that fails to compile', async () => {
    const before = await bench.startAt({ revision: 1, policies: [p1] });
    bench.transport.state = { revision: 3, policies: [p1, { id: P2, xml: brokenPolicy(P2, A) }] };
    bench.transport.emit({ revision: 3, type: 'revoke', policyId: P3 });
    await waitFor(async () => (await metricValue(bench.metrics, 'policy_compile_failures_total', { source: 'snapshot' })) >= 1);
    expect(bench.follower.active).toBe(before);
    // Once pap's set compiles again, the replica moves on.
    bench.transport.state = { revision: 4, policies: [p1, p2] };
    bench.follower.resync('periodic');
    expect((await bench.ready(4)).set.has(P2)).toBe(true);
  });

  describe('a snapshot whose documents arrive before it is complete (parts)', () => {
    const partsOfNextSnapshot = async (answer: ReturnType<typeof deferred<PolicySnapshot>>) => {
      bench.transport.answers.push(answer);
      bench.follower.resync('periodic');
      await waitFor(() => bench.transport.snapshotRequests === 2, { what: 'the second snapshot request' });
      const sink = bench.transport.sinks[1];
      if (sink === undefined) throw new Error('the follower gave the transport no sink');
      return sink;
    };

    it('compiles each part as it arrives and swaps the set in only once the whole snapshot is in', async () => {
      const before = await bench.startAt({ revision: 1, policies: [p1] });
      const answer = deferred<PolicySnapshot>();
      const sink = await partsOfNextSnapshot(answer);
      sink([p2]);
      expect(bench.compiled).toEqual([p1.xml, p2.xml]);
      expect(bench.follower.active).toBe(before);
      sink([p1]);
      // Unchanged since the active set: reused, not compiled again.
      expect(bench.compiled).toEqual([p1.xml, p2.xml]);
      answer.resolve({ revision: 3, policies: [p3] });
      const after = await bench.ready(3);
      expect(bench.compiled).toEqual([p1.xml, p2.xml, p3.xml]);
      expect(after.set.size === 3 && after.set.has(P1) && after.set.has(P2) && after.set.has(P3)).toBe(true);
      expect(after.set.get(P1)).toBe(before.set.get(P1));
      expect(bench.log.lines.find((l) => l.msg === 'policy snapshot active' && l.revision === 3)).toMatchObject({ compiled: 2, reused: 1 });
    });

    it('keeps the last good set when the snapshot fails after some parts were compiled', async () => {
      const before = await bench.startAt({ revision: 1, policies: [p1] });
      const answer = deferred<PolicySnapshot>();
      const sink = await partsOfNextSnapshot(answer);
      sink([p2]);
      const retry = deferred<PolicySnapshot>();
      bench.transport.answers.push(retry);
      answer.reject(new SnapshotError('snapshot part 2 arrived where part 1 was expected'));
      await waitFor(() => bench.transport.snapshotRequests === 3, { what: 'the retry' });
      expect(bench.follower.active).toBe(before);
      retry.resolve({ revision: 2, policies: [p1, p3] });
      const after = await bench.ready(2);
      // What the failed attempt compiled is not part of any set.
      expect(after.set.has(P2)).toBe(false);
      expect(after.set.size === 2 && after.set.has(P1) && after.set.has(P3)).toBe(true);
    });

    it('tells of a part that does not compile only once the snapshot is in and newer than the active set', async () => {
      const before = await bench.startAt({ revision: 4, policies: [p1] });
      const stale = deferred<PolicySnapshot>();
      (await partsOfNextSnapshot(stale))([{ id: P2, xml: brokenPolicy(P2, A) }]);
      stale.resolve({ revision: 4, policies: [] });
      await bench.follower.idle();
      expect(bench.follower.active).toBe(before);
      expect(await metricValue(bench.metrics, 'policy_compile_failures_total')).toBe(0);
      const newer = deferred<PolicySnapshot>();
      bench.transport.answers.push(newer);
      bench.follower.resync('periodic');
      await waitFor(() => bench.transport.snapshotRequests === 3, { what: 'the third snapshot request' });
      bench.transport.sinks[2]?.([{ id: P2, xml: brokenPolicy(P2, A) }, p3]);
      // The first failure ends the build: nothing after it is compiled.
      expect(bench.compiled).toEqual([p1.xml, brokenPolicy(P2, A), brokenPolicy(P2, A)]);
      newer.resolve({ revision: 6, policies: [] });
      await waitFor(async () => (await metricValue(bench.metrics, 'policy_compile_failures_total', { source: 'snapshot' })) === 1, { what: 'a compile failure' });
      await bench.follower.idle();
      expect(bench.follower.active).toBe(before);
      const line = bench.log.lines.find((l) => l.msg === 'policy failed to compile; the last good set stays active');
      expect(line).toMatchObject({ policyId: P2, source: 'snapshot', revision: 6, active: 4 });
    });
  });

  it('stays not ready when the first snapshot fails to compile', async () => {
    bench.transport.state = { revision: 2, policies: [{ id: P1, xml: brokenPolicy(P1, A) }] };
    bench.build();
    await bench.follower.start();
    await waitFor(async () => (await metricValue(bench.metrics, 'policy_compile_failures_total')) === 1);
    await bench.follower.idle();
    expect(bench.follower.ready).toBe(false);
    bench.transport.emit({ revision: 3, type: 'revoke', policyId: P1 });
    await bench.follower.idle();
    expect(bench.follower.ready).toBe(false);
    bench.transport.state = { revision: 3, policies: [] };
    bench.follower.resync('periodic');
    expect((await bench.ready(3)).set.size).toBe(0);
  });

  it('rejects a policy whose xml declares another id than the message', async () => {
    const before = await bench.startAt({ revision: 1, policies: [] });
    bench.transport.emit({ revision: 2, type: 'deploy', policy: { id: P2, xml: p1.xml } });
    await waitFor(async () => (await metricValue(bench.metrics, 'policy_compile_failures_total')) === 1);
    await bench.follower.idle();
    expect(bench.follower.active).toBe(before);
  });

  it('builds a new set beside the active one and swaps it in at once', async () => {
    bench.transport.state = { revision: 1, policies: [p1] };
    const seenDuringCompile: Array<ActivePolicySet | undefined> = [];
    bench.build({
      compile: (xml) => {
        seenDuringCompile.push(bench.follower.active);
        return loadPolicy(xml);
      },
    });
    await bench.follower.start();
    const first = await bench.ready(1);
    seenDuringCompile.length = 0;
    bench.transport.state = { revision: 5, policies: [p2, p3] };
    bench.follower.resync('periodic');
    const second = await bench.ready(5);
    // While the new set was being compiled, decisions still saw the complete old one.
    expect(seenDuringCompile).toHaveLength(2);
    for (const seen of seenDuringCompile) expect(seen).toBe(first);
    // Sets are immutable: whoever holds the old one keeps a consistent view.
    expect(first.revision).toBe(1);
    expect([first.set.has(P1), first.set.has(P2), first.set.size]).toEqual([true, false, 1]);
    expect([second.set.has(P1), second.set.has(P2), second.set.has(P3)]).toEqual([false, true, true]);
  });

  it('reuses compiled policies whose xml did not change', async () => {
    await bench.startAt({ revision: 1, policies: [p1, p2] });
    expect(bench.compiled).toHaveLength(2);
    const changed = { id: P2, xml: inhibitAll(P2, 'urn:action:acme:other') };
    bench.transport.state = { revision: 2, policies: [p1, changed, p3] };
    bench.follower.resync('periodic');
    await bench.ready(2);
    expect(bench.compiled.slice(2)).toEqual([changed.xml, p3.xml]);
  });
});
