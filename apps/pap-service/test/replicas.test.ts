import type { Express } from 'express';
import { connect, type NatsConnection } from 'nats';
import request from 'supertest';
import { replicaStatusSubject, type ReplicaStatusReport } from '@custos/contracts';
import { createMetrics } from '@custos/service-kit';
import { TEST_NATS_URL, uniqueNatsPrefix, waitFor } from '@custos/test-kit';
import { createApp, SERVICE_NAME } from '../src/app';
import { NatsLink } from '../src/propagation/nats-link';
import { readReport, ReplicaDirectory } from '../src/replicas/replica-directory';
import { startHarness, testLogger, type Harness } from './harness';

const report = (replica: string, revision: number | null, extra: Partial<ReplicaStatusReport> = {}): ReplicaStatusReport => ({
  replica,
  ready: revision !== null,
  revision,
  lagMs: 3,
  pendingChanges: 0,
  natsConnected: true,
  sentAt: '2026-01-01T00:00:00.000Z',
  ...extra,
});

describe('readReport', () => {
  test('a well-formed report is read as sent', () => {
    expect(readReport(JSON.stringify(report('r1', 4)))).toEqual(report('r1', 4));
  });

  test('anything else on the subject is not a report', () => {
    for (const data of ['not json', '[]', 'null', JSON.stringify({ replica: '', ready: true, revision: 1, natsConnected: true }), JSON.stringify({ ...report('r', 1), revision: -1 }), JSON.stringify({ ...report('r', 1), revision: 1.5 })]) {
      expect(readReport(data)).toBeUndefined();
    }
  });
});

describe('the directory', () => {
  const offline = { link: { onConnected: () => undefined }, prefix: 'x', logger: testLogger() };

  test('keeps the last report of each replica, marks the silent ones stale and forgets them after the forget time', () => {
    const directory = new ReplicaDirectory({ ...offline, staleAfterMs: 1000, forgetAfterMs: 10_000 });
    directory.receive(report('b', 1), 0);
    directory.receive(report('a', 1), 0);
    directory.receive(report('a', 2), 500);
    expect(directory.list(1200).map((r) => [r.report.replica, r.report.revision, r.stale])).toEqual([
      ['a', 2, false],
      ['b', 1, true],
    ]);
    // Silent, yet still listed until the forget time: at 10 000 `b` has been silent exactly that long.
    expect(directory.list(10_000).map((r) => [r.report.replica, r.stale])).toEqual([
      ['a', true],
      ['b', true],
    ]);
    // Past it: gone. At 10 400, `b` has been silent 10 400 ms, `a` 9 900 ms.
    expect(directory.list(10_400).map((r) => r.report.replica)).toEqual(['a']);
  });

  test('by default a stopped replica stays listed, stale, for an hour after its last report', () => {
    const directory = new ReplicaDirectory(offline);
    directory.receive(report('stopped', 3), 0);
    const minute = 60_000;
    // Under the old rule (ten times the stale time) it was gone after a minute.
    expect(directory.list(5 * minute).map((r) => [r.report.replica, r.stale, r.receivedAt])).toEqual([['stopped', true, 0]]);
    expect(directory.list(60 * minute).map((r) => r.report.replica)).toEqual(['stopped']);
    expect(directory.list(60 * minute + 1)).toEqual([]);
    // A report brings it back as live.
    directory.receive(report('stopped', 3), 61 * minute);
    expect(directory.list(61 * minute).map((r) => r.stale)).toEqual([false]);
  });

  test('remembers at most maxReplicas, forgetting the longest silent first', () => {
    const directory = new ReplicaDirectory({ ...offline, maxReplicas: 2 });
    directory.receive(report('a', 1), 0);
    directory.receive(report('b', 1), 1);
    directory.receive(report('a', 2), 2);
    directory.receive(report('c', 1), 3);
    expect(directory.list(4).map((r) => r.report.replica)).toEqual(['a', 'c']);
  });

  test('hears reports on its prefix over NATS, and only on its own', async () => {
    const prefix = uniqueNatsPrefix();
    const link = new NatsLink({ servers: TEST_NATS_URL, name: 'replicas-test', logger: testLogger() }).start();
    const directory = new ReplicaDirectory({ link, prefix, logger: testLogger() }).start();
    const nc: NatsConnection = await connect({ servers: TEST_NATS_URL });
    try {
      await waitFor(() => link.state() === 'connected', { what: 'pap connected' });
      await link.connection()?.flush();
      nc.publish(replicaStatusSubject(`${prefix}-other`), JSON.stringify(report('elsewhere', 1)));
      nc.publish(replicaStatusSubject(prefix), 'garbage');
      nc.publish(replicaStatusSubject(prefix), JSON.stringify(report('r1', 7)));
      const heard = await waitFor(() => directory.list().find((r) => r.report.replica === 'r1'), { what: 'the report of r1' });
      expect(heard.report).toEqual(report('r1', 7));
      expect(directory.list().map((r) => r.report.replica)).toEqual(['r1']);
    } finally {
      directory.stop();
      await nc.close();
      await link.close();
    }
  });
});

describe('GET /ws/replicas', () => {
  let h: Harness;
  let app: Express;
  const directory = new ReplicaDirectory({ link: { onConnected: () => undefined }, prefix: 'x', logger: testLogger() });

  beforeAll(async () => {
    h = await startHarness();
    app = createApp({ ...h.deps, metrics: createMetrics(SERVICE_NAME, false), replicas: directory });
  });
  afterAll(async () => {
    await h.close();
  });

  test("pap's revision and each replica with how far it is behind", async () => {
    await h.pool.query('UPDATE pap.state SET revision = 5');
    directory.receive(report('r1', 5));
    directory.receive(report('r2', 3));
    directory.receive(report('r3', null));
    const res = await request(app).get('/ws/replicas').set('Authorization', h.bearer());
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const body = res.body as { revision: number; replicas: Array<{ replica: string; revision: number | null; lag: number | null; stale: boolean }> };
    expect(body.revision).toBe(5);
    expect(body.replicas.map((r) => [r.replica, r.revision, r.lag, r.stale])).toEqual([
      ['r1', 5, 0, false],
      ['r2', 3, 2, false],
      ['r3', null, null, false],
    ]);
  });

  test('needs `policy:read`', async () => {
    expect((await request(app).get('/ws/replicas')).status).toBe(401);
    expect((await request(app).get('/ws/replicas').set('Authorization', h.bearer({ scopes: ['event:decide'] }))).status).toBe(403);
  });

  test('a pap without propagation knows no replica', async () => {
    const res = await request(h.app).get('/ws/replicas').set('Authorization', h.bearer());
    expect((res.body as { replicas: unknown[] }).replicas).toEqual([]);
  });
});
