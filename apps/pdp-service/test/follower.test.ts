import { waitFor } from '@custos/test-kit';
import { SnapshotError } from '@custos/contracts';
import { P1, P2, P3, p1, p2, p3, metricValue, useFollowerBench } from './support/follower-bench';
import { deferred } from './support/fake-transport';

/** The follower of the deployed set: its start, the changes it applies in order, and the snapshots it takes. */
describe('PolicySetFollower: start, changes and snapshots', () => {
  const bench = useFollowerBench();

  it('subscribes to changes before it asks for the snapshot, and is ready only once the snapshot is active', async () => {
    const answer = deferred<{ revision: number; policies: Array<{ id: string; xml: string }> }>();
    bench.transport.answers.push(answer);
    bench.build();
    await bench.follower.start();
    await waitFor(() => bench.transport.snapshotRequests === 1, { what: 'a snapshot request' });
    expect(bench.transport.calls).toEqual(['subscribe', 'snapshot']);
    expect(bench.follower.ready).toBe(false);
    expect(bench.follower.status()).toMatchObject({ ready: false, revision: null, policies: 0 });
    answer.resolve({ revision: 4, policies: [p1, p2] });
    const active = await bench.ready(4);
    expect(active.set.size).toBe(2);
    expect(active.set.has(P1) && active.set.has(P2)).toBe(true);
    expect(bench.follower.status()).toMatchObject({ ready: true, revision: 4, policies: 2 });
    expect(bench.follower.status().lastSyncAt).not.toBeNull();
    expect(await metricValue(bench.metrics, 'policy_revision')).toBe(4);
    expect(await metricValue(bench.metrics, 'resyncs_total', { reason: 'start' })).toBe(1);
  });

  it('buffers changes that arrive while the snapshot loads and applies the newer ones afterwards', async () => {
    const answer = deferred<{ revision: number; policies: Array<{ id: string; xml: string }> }>();
    bench.transport.answers.push(answer);
    bench.build();
    await bench.follower.start();
    await waitFor(() => bench.transport.snapshotRequests === 1);
    bench.transport.emit({ revision: 5, type: 'deploy', policy: p1 }); // already in the snapshot
    bench.transport.emit({ revision: 6, type: 'deploy', policy: p3 });
    bench.transport.emit({ revision: 7, type: 'revoke', policyId: P2 });
    expect(bench.follower.status().pendingChanges).toBe(3);
    answer.resolve({ revision: 5, policies: [p1, p2] });
    const active = await bench.ready(7);
    expect([active.set.has(P1), active.set.has(P2), active.set.has(P3)]).toEqual([true, false, true]);
    expect(bench.transport.snapshotRequests).toBe(1);
    expect(bench.follower.status().pendingChanges).toBe(0);
  });

  it('applies changes in revision order and ignores duplicates', async () => {
    await bench.startAt({ revision: 1, policies: [p1] });
    bench.transport.emit({ revision: 2, type: 'deploy', policy: p2 });
    bench.transport.emit({ revision: 3, type: 'revoke', policyId: P2 });
    bench.transport.emit({ revision: 2, type: 'deploy', policy: p2 }); // duplicate delivery
    bench.transport.emit({ revision: 3, type: 'revoke', policyId: P2 });
    bench.transport.emit({ revision: 1, type: 'revoke', policyId: P1 });
    const active = await bench.ready(3);
    expect(active.set.has(P1)).toBe(true);
    expect(active.set.has(P2)).toBe(false);
    expect(bench.transport.snapshotRequests).toBe(1);
    const status = bench.follower.status();
    expect(status.lastChangeAt).not.toBeNull();
    expect(status.lastAppliedAt).not.toBeNull();
    expect(status.lagMs).toBeGreaterThanOrEqual(0);
  });

  it('takes a fresh snapshot on a gap instead of applying out of order', async () => {
    await bench.startAt({ revision: 1, policies: [p1] });
    bench.transport.state = { revision: 3, policies: [p1, p2] }; // revision 2 never arrives as a message
    bench.transport.emit({ revision: 3, type: 'deploy', policy: p2 });
    const active = await bench.ready(3);
    expect(active.set.has(P2)).toBe(true);
    expect(bench.transport.snapshotRequests).toBe(2);
    expect(await metricValue(bench.metrics, 'resyncs_total', { reason: 'gap' })).toBe(1);
    // Later changes continue from the snapshot's revision.
    bench.transport.emit({ revision: 4, type: 'revoke', policyId: P1 });
    expect((await bench.ready(4)).set.has(P1)).toBe(false);
    expect(bench.transport.snapshotRequests).toBe(2);
  });

  it('keeps a change that is newer than the gap snapshot and applies it after', async () => {
    await bench.startAt({ revision: 1, policies: [] });
    bench.transport.state = { revision: 2, policies: [p1] }; // the snapshot covers 2 only
    bench.transport.emit({ revision: 3, type: 'deploy', policy: p2 });
    bench.transport.emit({ revision: 2, type: 'deploy', policy: p1 });
    const active = await bench.ready(3);
    expect(active.set.has(P1) && active.set.has(P2)).toBe(true);
  });

  it('fetches a snapshot when a resync message arrives', async () => {
    await bench.startAt({ revision: 1, policies: [] });
    bench.transport.state = { revision: 2, policies: [p1] };
    bench.transport.emit({ revision: 2, type: 'resync' });
    const active = await bench.ready(2);
    expect(active.set.has(P1)).toBe(true);
    expect(await metricValue(bench.metrics, 'resyncs_total', { reason: 'message' })).toBe(1);
  });

  it('backs off instead of spinning when the snapshot does not cover the gap', async () => {
    await bench.startAt({ revision: 1, policies: [] });
    bench.transport.emit({ revision: 5, type: 'revoke', policyId: P1 }); // pap's snapshot still says 1
    await waitFor(() => bench.transport.snapshotRequests >= 4, { what: 'repeated snapshots' });
    expect(bench.follower.active?.revision).toBe(1);
    // Backoff 5 ms doubling (±20 %): the third retry waits about 20 ms, the one before about 10 ms.
    const [, , third, fourth] = bench.transport.requestTimes as [number, number, number, number];
    expect(fourth - third).toBeGreaterThanOrEqual(7);
    bench.transport.state = { revision: 5, policies: [p2] };
    expect((await bench.ready(5)).set.has(P2)).toBe(true);
    const requests = bench.transport.snapshotRequests;
    // Once caught up, nothing asks for more snapshots.
    await bench.follower.idle();
    expect(bench.transport.snapshotRequests).toBe(requests);
  });

  it('skips the swap when a periodic snapshot has the active revision', async () => {
    bench.transport.state = { revision: 3, policies: [p1] };
    bench.build({ resyncIntervalMs: 100 });
    await bench.follower.start();
    const first = await bench.ready(3);
    await waitFor(() => bench.transport.snapshotRequests >= 3, { what: 'periodic snapshots' });
    await bench.follower.idle();
    expect(bench.follower.active).toBe(first);
    expect(bench.compiled).toHaveLength(1);
    expect(await metricValue(bench.metrics, 'resyncs_total', { reason: 'periodic' })).toBeGreaterThanOrEqual(2);
  });

  it('asks with the active revision, and takes an unchanged answer as the check it is: no documents, no swap', async () => {
    bench.transport.state = { revision: 3, policies: [p1] };
    bench.transport.answersUnchanged = true;
    bench.build();
    await bench.follower.start();
    const first = await bench.ready(3);
    bench.follower.resync('periodic');
    await bench.follower.idle();
    expect(bench.transport.knowns).toEqual([undefined, 3]);
    expect(bench.follower.active).toBe(first);
    expect(bench.compiled).toHaveLength(1);
    expect(await metricValue(bench.metrics, 'resyncs_unchanged_total', { reason: 'periodic' })).toBe(1);
    expect(bench.follower.status().lastSyncAt).not.toBeNull();
    // Once pap moved on, the same check brings the whole set.
    bench.transport.state = { revision: 4, policies: [p1, p2] };
    bench.follower.resync('periodic');
    await bench.ready(4);
    expect(bench.transport.knowns).toEqual([undefined, 3, 3]);
    expect(bench.follower.status().policies).toBe(2);
    expect(await metricValue(bench.metrics, 'resyncs_unchanged_total', { reason: 'periodic' })).toBe(1);
  });

  it('keeps the active set when a snapshot is older than it', async () => {
    const first = await bench.startAt({ revision: 3, policies: [p1] });
    bench.transport.state = { revision: 2, policies: [] };
    bench.follower.resync('periodic');
    await waitFor(() => bench.transport.snapshotRequests === 2);
    await bench.follower.idle();
    expect(bench.follower.active).toBe(first);
  });

  it('takes a snapshot after a reconnect', async () => {
    await bench.startAt({ revision: 1, policies: [] });
    bench.transport.state = { revision: 2, policies: [p1] }; // the change message was lost while disconnected
    bench.transport.reconnect();
    expect((await bench.ready(2)).set.has(P1)).toBe(true);
    expect(await metricValue(bench.metrics, 'resyncs_total', { reason: 'reconnect' })).toBe(1);
  });

  it('retries a failed snapshot with backoff', async () => {
    bench.transport.answers.push(new SnapshotError('no snapshot chunk arrived within 5000 ms'), new SnapshotError('out of order'));
    await bench.startAt({ revision: 7, policies: [p1] });
    expect(bench.transport.snapshotRequests).toBe(3);
    expect(await metricValue(bench.metrics, 'resyncs_total', { reason: 'retry' })).toBe(2);
    const warnings = bench.log.lines.filter((l) => l.msg === 'policy snapshot could not be fetched; retrying');
    expect(warnings.map((l) => [l.problem, l.attempt])).toEqual([
      ['no snapshot chunk arrived within 5000 ms', 1],
      ['out of order', 2],
    ]);
  });

  it('resolves revision waiters when their revision becomes active, or false after the wait', async () => {
    await bench.startAt({ revision: 1, policies: [] });
    expect(await bench.follower.waitForRevision(1, 0)).toBe(true);
    const two = bench.follower.waitForRevision(2, 5000);
    const three = bench.follower.waitForRevision(3, 5000);
    const late = bench.follower.waitForRevision(9, 50);
    bench.transport.emit({ revision: 2, type: 'deploy', policy: p1 });
    expect(await two).toBe(true);
    expect(await late).toBe(false);
    bench.transport.emit({ revision: 3, type: 'deploy', policy: p2 });
    expect(await three).toBe(true);
    const never = bench.follower.waitForRevision(10, 60_000);
    await bench.follower.stop();
    expect(await never).toBe(false);
    expect(bench.transport.closed).toBe(true);
  });
});
