// Issue 26, item 1: the trade of the history batch window (PDP_HISTORY_BATCH_WINDOW_MS) — fewer, bigger batches for
// some latency — with no HTTP around it: three history stores (the replicas, each its own pool, in this process) get
// decisions of one hot action at a fixed rate, open loop (each timed from its due moment until its count is known
// and its event is on disk), the windows alternating round by round in the same database. Per decision: batches,
// the backends' CPU and wake-ups (from /proc), this process's CPU; and the latency. In one process the replicas
// share an event loop, so this process's wake-ups are not three replicas' — its CPU is informational.
//
//   node scripts/bench/history-window.mjs [--rate 1000] [--seconds 5] [--rounds 2] [--windows 0,1,2,3]
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import * as lib from './lib.mjs';

const argument = (name, fallback) => {
  const index = process.argv.indexOf(`--${name}`);
  return index < 0 ? fallback : process.argv[index + 1];
};
const rate = Number(argument('rate', 1000));
const seconds = Number(argument('seconds', 5));
const rounds = Number(argument('rounds', 2));
const windows = argument('windows', '0,1,2,3').split(',').map(Number);
const REPLICAS = 3;

const pdpDist = (file) => lib.require(path.join(lib.ROOT, 'apps', 'pdp-service', 'dist', file));
const { PgHistoryStore } = pdpDist('history/store.js');
const { HistoryHasher } = pdpDist('history/hashing.js');
const { actionLockKey } = pdpDist('history/plan.js');
const serviceKit = lib.require(path.join(lib.ROOT, 'packages/service-kit/dist/index.js'));
const { Pool } = lib.require('pg');
const silent = { debug() {}, info() {}, warn() {}, error() {}, child() { return silent; } };
const hasher = new HistoryHasher('bench-window-secret-0123456789');
const action = `urn:action:${lib.SOLUTION}:window`;
const plan = { action, record: true, usesPorts: true, usesHistory: true, filters: [], lockKey: actionLockKey(action) };
const query = { policyId: lib.policyId('window'), action, filters: [] };

const counters = (pid) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  const wakeups = Number(/voluntary_ctxt_switches:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
  return { us: (Number(fields[11]) + Number(fields[12])) * 10_000, wakeups };
};

async function round(url, windowMs) {
  let batches = 0;
  const metrics = { failures() {}, phase: (phase) => void (phase === 'record' && (batches += 1)) };
  const pools = Array.from({ length: REPLICAS }, () => new Pool({ connectionString: url, max: 1 }));
  const stores = pools.map((pool) => new PgHistoryStore({ pool, hasher, logger: silent, metrics, batchWindowMs: windowMs }));
  // One connection each (the backend measured), opened before the clock; a count not known waits for it.
  const pids = [];
  for (const pool of pools) pids.push((await pool.query('SELECT pg_backend_pid() AS pid')).rows[0].pid);
  const dayStart = Date.now() - (Date.now() % 86_400_000);
  const before = pids.map(counters);
  const cpuBefore = process.cpuUsage();
  const batchesBefore = batches;
  const latencies = [];
  let failed = 0;
  const total = Math.round(rate * seconds);
  const started = performance.now();
  const pending = [];
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait >= 1) await lib.sleep(wait);
    pending.push(
      (async () => {
        try {
          const event = await stores[i % REPLICAS].batcher.record({ plan, revision: 1, solution: lib.SOLUTION, keys: [], now: Date.now() });
          const [, durable] = await Promise.all([event.history.count(query, [{ from: dayStart, to: dayStart + 86_400_000 }]), event.durable]);
          if (!durable) failed += 1;
          latencies.push(performance.now() - due);
        } catch {
          failed += 1;
        }
      })(),
    );
  }
  await Promise.all(pending);
  const cpu = process.cpuUsage(cpuBefore);
  const after = pids.map(counters);
  await Promise.all(pools.map((pool) => pool.end()));
  const backendUs = after.reduce((sum, c, i) => sum + c.us - before[i].us, 0);
  const backendWakeups = after.reduce((sum, c, i) => sum + c.wakeups - before[i].wakeups, 0);
  return [
    `${windowMs} ms`,
    String(total),
    lib.fmt((batches - batchesBefore) / total, 2),
    lib.fmt(backendUs / total, 0),
    lib.fmt(backendWakeups / total, 2),
    lib.fmt((cpu.user + cpu.system) / total, 0),
    lib.fmt(lib.percentile(latencies, 50)),
    lib.fmt(lib.percentile(latencies, 99)),
    String(failed),
    lib.fmt(loadavg()[0], 1),
  ];
}

const database = await lib.testKit().createTestDatabase('custos_bench_window');
try {
  await serviceKit.migrate({ databaseUrl: database.url, schema: 'pdp', dir: path.join(lib.ROOT, 'apps/pdp-service/migrations'), logger: silent });
  const rows = [];
  for (let r = 0; r < rounds; r++) for (const windowMs of windows) rows.push(await round(database.url, windowMs));
  console.log(`one hot action, ${rate}/s over ${REPLICAS} in-process replicas, open loop, ${seconds} s a round, windows alternating`);
  console.log(
    lib.table(['window', 'decisions', 'batches/decision', 'backends µs/decision', 'backends wake-ups/decision', 'this process µs/decision', 'p50 ms', 'p99 ms', 'failed', 'load (1 min)'], rows),
  );
} finally {
  await database.drop();
}
