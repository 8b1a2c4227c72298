// Issue 26, item 1: what one history batch costs PostgreSQL and its client, statement against statement, with no
// HTTP, engine or pdp around it. `--connections` clients (the replicas) each record one event of one hot action per
// batch, one batch at a time, paced together at `--rate` batches/s; the variants alternate round by round in the same
// database, so a loaded machine weighs on both alike. Per batch: the backends' CPU (utime + stime from /proc, all of
// them ours) and wake-ups (voluntary context switches: a sleep and a wake, tens of µs each on this machine), the
// walwriter's wake-ups (shared with whatever else uses the server) and this process's CPU (the client's write and
// parse, and its timers).
//
//   node scripts/bench/history-statements.mjs [--rate 600] [--seconds 5] [--connections 3] [--rounds 3] [--only a,b]
//                                             [--events 1]   (events per batch of variants 2–5; figures stay per batch)
//
// Variants (--only takes their numbers): 1 "four statements" is the message the pdp sent before session 7 (BEGIN;
// pdp.record_events with its arrays written as literal SQL; COMMIT; a synchronous flush in a transaction of its
// own); 2 "prepared CALL" what it sends now (pdp.record_batch, apps/pdp-service/src/history/batch-sql.ts, taken from
// the built pdp); 3 the same without the flush (what the flush costs); 4 the same with the session's commit_delay
// (PostgreSQL's group commit waiting for other flushes; superuser only); 5 one transaction committing
// synchronously with the lock held through the flush.
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import * as lib from './lib.mjs';

const argument = (name, fallback) => {
  const index = process.argv.indexOf(`--${name}`);
  return index < 0 ? fallback : Number(process.argv[index + 1]);
};
const rate = argument('rate', 600);
// Events per batch of the prepared CALL variants (2–5): what a bigger batch saves per decision at the same batch rate.
const events = argument('events', 1);
const seconds = argument('seconds', 5);
const connections = argument('connections', 3);
const rounds = argument('rounds', 3);
const onlyIndex = process.argv.indexOf('--only');
const only = onlyIndex < 0 ? undefined : process.argv[onlyIndex + 1].split(',').map(Number);

const pg = lib.require('pg');
const serviceKit = lib.require(path.join(lib.ROOT, 'packages/service-kit/dist/index.js'));
const { recordBatchQuery, recordedEvents } = lib.require(path.join(lib.ROOT, 'apps/pdp-service/dist/history/batch-sql.js'));
const { actionLockKey } = lib.require(path.join(lib.ROOT, 'apps/pdp-service/dist/history/plan.js'));

const ACTION = `urn:action:${lib.SOLUTION}:hotkey`;
const KEYS = 'Uk9iRXJ0LXVzZXIta2V5LWhhc2gtb2YtdGhlLWV2ZW50LTAx dGhlLWZpbHRlci1rZXktb2YtdGhlLWV2ZW50LTAxMjM0NTY3';
const quiet = { info() {}, warn() {}, error() {}, debug() {}, child() { return quiet; } };
/** A process's CPU (µs) and wake-ups (voluntary context switches) so far. */
const counters = (pid) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  const wakeups = Number(/voluntary_ctxt_switches:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
  return { us: (Number(fields[11]) + Number(fields[12])) * 10_000, wakeups };
};
const minus = (a, b) => ({ us: a.us - b.us, wakeups: a.wakeups - b.wakeups });
const sumOf = (list) => list.reduce((sum, c) => ({ us: sum.us + c.us, wakeups: sum.wakeups + c.wakeups }), { us: 0, wakeups: 0 });

const arguments_ = (since) => ({
  lockKey: actionLockKey(ACTION),
  action: ACTION,
  since,
  solutions: Array(events).fill(lib.SOLUTION),
  nows: Array(events).fill(Date.now()),
  revisions: Array(events).fill(1),
  keys: Array(events).fill(KEYS),
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
  'prepared CALL, no flush': (since) => ({
    query: recordBatchQuery(arguments_(since), false),
    read: (result) => recordedEvents(result.rows).map(([id, at]) => ({ id, at })),
  }),
  'prepared CALL, commit_delay 100 µs': (since) => ({
    setup: 'SET commit_delay = 100; SET commit_siblings = 1',
    query: recordBatchQuery(arguments_(since), true),
    read: (result) => recordedEvents(result.rows).map(([id, at]) => ({ id, at })),
  }),
  'one transaction, lock held through the flush': (since) => ({
    query:
      `BEGIN; SELECT id, at, keys, fresh FROM pdp.record_events(${actionLockKey(ACTION)}::bigint, ${literal(ACTION)}, ` +
      `${since ? since.id : 'NULL'}::bigint, ${since ? since.at : 'NULL'}::bigint, ARRAY[${literal(lib.SOLUTION)}]::text[], ` +
      `ARRAY[${Date.now()}]::bigint[], ARRAY[1]::bigint[], ARRAY[${literal(KEYS)}]::text[], 10000); SET LOCAL synchronous_commit = on; COMMIT`,
    read: (results) => results[1].rows.map((row) => ({ id: Number(row.id), at: Number(row.at) })),
  }),
};
const NAMES = Object.keys(VARIANTS);

async function round(url, variant) {
  const clients = [];
  for (let i = 0; i < connections; i++) {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    client.pid = (await client.query('SELECT pg_backend_pid() AS pid')).rows[0].pid;
    const setup = VARIANTS[variant]().setup;
    if (setup) await client.query(setup);
    clients.push(client);
  }
  const before = clients.map((client) => counters(client.pid));
  const walwriterBefore = counters(walwriter);
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
  const backends = sumOf(clients.map((client, i) => minus(counters(client.pid), before[i])));
  const writer = minus(counters(walwriter), walwriterBefore);
  await Promise.all(clients.map((client) => client.end()));
  const batches = latencies.length;
  return [
    `${NAMES.indexOf(variant) + 1} ${variant}`,
    String(batches),
    lib.fmt(backends.us / batches, 0),
    lib.fmt(backends.wakeups / batches, 2),
    lib.fmt(writer.wakeups / batches, 2),
    lib.fmt((cpu.user + cpu.system) / batches, 0),
    lib.fmt(lib.percentile(latencies, 50)),
    lib.fmt(lib.percentile(latencies, 99)),
    lib.fmt(loadavg()[0], 1),
  ];
}

let walwriter;
const database = await lib.testKit().createTestDatabase('custos_bench_statements');
try {
  await serviceKit.migrate({ databaseUrl: database.url, schema: 'pdp', dir: path.join(lib.ROOT, 'apps/pdp-service/migrations'), logger: quiet });
  const observer = new pg.Client({ connectionString: database.url });
  await observer.connect();
  walwriter = (await observer.query("SELECT pid FROM pg_stat_activity WHERE backend_type = 'walwriter'")).rows[0].pid;
  await observer.end();
  const rows = [];
  const chosen = NAMES.filter((_, i) => only === undefined || only.includes(i + 1));
  for (let r = 0; r < rounds; r++) for (const variant of chosen) rows.push(await round(database.url, variant));
  console.log(`${events} event(s) per batch (variant 1: one), ${connections} connections, ${rate} batches/s in all, ${seconds} s a round, rounds alternating`);
  console.log(
    lib.table(['variant', 'batches', 'backends µs/batch', 'backends wake-ups/batch', 'walwriter wake-ups/batch', 'client µs/batch', 'p50 ms', 'p99 ms', 'load (1 min)'], rows),
  );
} finally {
  await database.drop();
}
