// Issue 26, item 1: what one history batch costs PostgreSQL and its client, statement against statement, with no
// HTTP, engine or pdp around it. `--connections` clients (the replicas) each record one event of one hot action per
// batch, one batch at a time, paced together at `--rate` batches/s; the variants alternate round by round in the same
// database, so a loaded machine weighs on both alike. Per batch: the backends' CPU (utime + stime from /proc, all of
// them ours) and this process's CPU (the client's write and parse, and its timers).
//
//   node scripts/bench/history-statements.mjs [--rate 600] [--seconds 5] [--connections 3] [--rounds 3]
//
// Variants: "four statements" is the message the pdp sent before (BEGIN; pdp.record_events with its arrays written
// as literal SQL; COMMIT; a synchronous flush in a transaction of its own), "prepared CALL" what it sends now
// (pdp.record_batch, apps/pdp-service/src/history/batch-sql.ts, taken from the built pdp). Both flush to disk.
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import * as lib from './lib.mjs';

const argument = (name, fallback) => {
  const index = process.argv.indexOf(`--${name}`);
  return index < 0 ? fallback : Number(process.argv[index + 1]);
};
const rate = argument('rate', 600);
const seconds = argument('seconds', 5);
const connections = argument('connections', 3);
const rounds = argument('rounds', 3);

const pg = lib.require('pg');
const serviceKit = lib.require(path.join(lib.ROOT, 'packages/service-kit/dist/index.js'));
const { recordBatchQuery, recordedEvents } = lib.require(path.join(lib.ROOT, 'apps/pdp-service/dist/history/batch-sql.js'));
const { actionLockKey } = lib.require(path.join(lib.ROOT, 'apps/pdp-service/dist/history/plan.js'));

const ACTION = `urn:action:${lib.SOLUTION}:hotkey`;
const KEYS = 'Uk9iRXJ0LXVzZXIta2V5LWhhc2gtb2YtdGhlLWV2ZW50LTAx dGhlLWZpbHRlci1rZXktb2YtdGhlLWV2ZW50LTAxMjM0NTY3';
const quiet = { info() {}, warn() {}, error() {}, debug() {}, child() { return quiet; } };
const ticks = (pid) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return Number(fields[11]) + Number(fields[12]);
};

const arguments_ = (since) => ({
  lockKey: actionLockKey(ACTION),
  action: ACTION,
  since,
  solutions: [lib.SOLUTION],
  nows: [Date.now()],
  revisions: [1],
  keys: [KEYS],
  limit: 10_000,
});
const literal = pg.escapeLiteral;
const VARIANTS = {
  'four statements': (since) => ({
    query:
      `BEGIN; SELECT id, at, keys, fresh FROM pdp.record_events(${actionLockKey(ACTION)}::bigint, ${literal(ACTION)}, ` +
      `${since ? since.id : 'NULL'}::bigint, ${since ? since.at : 'NULL'}::bigint, ARRAY[${literal(lib.SOLUTION)}]::text[], ` +
      `ARRAY[${Date.now()}]::bigint[], ARRAY[1]::bigint[], ARRAY[${literal(KEYS)}]::text[], 10000); COMMIT; ` +
      "SELECT set_config('synchronous_commit', 'on', true), pg_logical_emit_message(true, 'custos:history', 'durable')",
    read: (results) => results[1].rows.map((row) => ({ id: Number(row.id), at: Number(row.at) })),
  }),
  'prepared CALL': (since) => ({
    query: recordBatchQuery(arguments_(since), true),
    read: (result) => recordedEvents(result.rows).map(([id, at]) => ({ id, at })),
  }),
};

async function round(url, variant) {
  const clients = [];
  for (let i = 0; i < connections; i++) {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    client.pid = (await client.query('SELECT pg_backend_pid() AS pid')).rows[0].pid;
    clients.push(client);
  }
  const before = clients.map((client) => ticks(client.pid));
  const cpuBefore = process.cpuUsage();
  const latencies = [];
  const started = performance.now();
  const interval = (1000 * connections) / rate;
  await Promise.all(
    clients.map(async (client, i) => {
      let since;
      for (let n = 0; ; n++) {
        const due = started + (n + i / connections) * interval;
        if (due > started + seconds * 1000) break;
        if (due > performance.now()) await lib.sleep(due - performance.now());
        const { query, read } = VARIANTS[variant](since);
        const events = read(await client.query(query));
        since = events.at(-1) ?? since;
        latencies.push(performance.now() - due);
      }
    }),
  );
  const cpu = process.cpuUsage(cpuBefore);
  const backendTicks = clients.reduce((sum, client, i) => sum + ticks(client.pid) - before[i], 0);
  await Promise.all(clients.map((client) => client.end()));
  const batches = latencies.length;
  return [
    variant,
    String(batches),
    lib.fmt((backendTicks * 10_000) / batches, 0),
    lib.fmt((cpu.user + cpu.system) / batches, 0),
    lib.fmt(lib.percentile(latencies, 50)),
    lib.fmt(lib.percentile(latencies, 99)),
    lib.fmt(loadavg()[0], 1),
  ];
}

const database = await lib.testKit().createTestDatabase('custos_bench_statements');
try {
  await serviceKit.migrate({ databaseUrl: database.url, schema: 'pdp', dir: path.join(lib.ROOT, 'apps/pdp-service/migrations'), logger: quiet });
  const rows = [];
  for (let r = 0; r < rounds; r++) for (const variant of Object.keys(VARIANTS)) rows.push(await round(database.url, variant));
  console.log(`one event per batch, ${connections} connections, ${rate} batches/s in all, ${seconds} s a round, rounds alternating`);
  console.log(lib.table(['variant', 'batches', 'backends µs/batch', 'client µs/batch', 'p50 ms', 'p99 ms', 'load (1 min)'], rows));
} finally {
  await database.drop();
}
