// Benchmark of issues 4 and 11 — usage control with memory and reach:
//   1. decisions of a history-using policy ("at most N per day and user": the event is recorded in PostgreSQL under its
//      action's lock, then counted) at 50 concurrent clients spread over 3 pdp replicas — targets p99 ≤ 5 ms and
//      ≥ 3,000 decisions/s on one action (one lock, the worst case); also spread over 16 actions. Beside it, the floor:
//      one client running lock + insert + count + commit in a loop (what one action reaches one decision at a time),
//      and the exactness check: a limit of N under the same concurrency allows exactly N;
//   2. decisions of a pure policy at a fixed rate, alone and while the history traffic of 1. runs — target: within 10 %;
//   3. the time a PIP answered from its ttl cache adds to a decision, in-process (engine + the pdp's resolver, built) —
//      target ≤ 20 µs; and, informational, the pdp's CPU time per request over HTTP with and without that PIP.
//
//   4. (issue 26) the latency a PEP sees at a fixed rate, open loop (scripts/bench/open-loop.mjs: each request timed
//      from the moment it was due, so queueing cannot hide): one action counted as a whole ("at most N today" over
//      every event of the action: one hot key) and per user — target p99 ≤ 5 ms at 1,000/s over 3 replicas; beside
//      it, flat out on the whole-action count (≥ 4,000/s) and its exactness (a limit of N allows exactly N).
//
//   node scripts/bench/history.mjs [--quick]        (build first: npx turbo run build)
//   node scripts/bench/history.mjs --open-loop [--rate 1000] [--seconds 10] [--replicas 3] [--preload n]
//        only the open-loop runs of 4. (hot key, then per user, then a pure policy on the same requests: what the HTTP
//        path alone costs at that rate), with the pdps' history phase timings from /metrics and their CPU, commits and
//        history batches per decision;
//        --preload records n events of the hot action earlier today first (a day's traffic: what a recount costs);
//        --policies n deploys n pure policies of other actions beside (what the pdps' periodic snapshots carry);
//        BENCH_PDP_MAIN=<other build's dist/main.js> runs another pdp build the same way (side-by-side comparisons);
//        BENCH_PDP_RESYNC_MS=<ms> sets the pdps' periodic resync (PDP_RESYNC_INTERVAL_MS; 30 s by default);
//        BENCH_DEPLOY_EVERY_MS=<ms> deploys a policy of another action that often during the runs (new revisions).
//
// Everything runs on the machine's PostgreSQL and NATS; the stack, its database and NATS stream are removed afterwards.
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import * as lib from './lib.mjs';

export const name = 'history';
export const title = 'History — history-using decisions on 3 replicas, pure decisions beside them, PIP ttl cache';

const REPLICAS = 3;
const CONNECTIONS = 50;
const SPREAD_ACTIONS = 16;
const NS =
  'xmlns="http://www.mydata-control.de/4.0/mydataLanguage" xmlns:event="http://www.mydata-control.de/4.0/event" ' +
  'xmlns:constant="http://www.mydata-control.de/4.0/constant" xmlns:parameter="http://www.mydata-control.de/4.0/parameter" ' +
  'xmlns:pip="http://www.mydata-control.de/4.0/pip"';
const S = lib.SOLUTION;

/** "At most `limit` per day and user" on `action` (a billion: every decision records and counts, none is inhibited). */
const limitPolicy = (name, action, limit = 1_000_000_000) => `<policy ${NS} id="${lib.policyId(name)}">
  <mechanism event="urn:action:${S}:${action}">
    <if><greater><count><eventOccurrence event="urn:action:${S}:${action}">
          <parameter:string name="user" jsonPathQuery="$.id"><event:string eventParameter="user" jsonPathQuery="$.id" default=""/></parameter:string>
        </eventOccurrence><when fixedTime="today"/></count><constant:number value="${limit}"/></greater>
      <then><inhibit reason="daily limit"/></then></if>
    <else><allow/></else>
  </mechanism>
</policy>`;

/** "At most `limit` today" counted over the whole action, whoever the user: every decision asks the same count. */
const actionLimitPolicy = (name, action, limit = 1_000_000_000) => `<policy ${NS} id="${lib.policyId(name)}">
  <mechanism event="urn:action:${S}:${action}">
    <if><greater><count><eventOccurrence event="urn:action:${S}:${action}"/><when fixedTime="today"/></count><constant:number value="${limit}"/></greater>
      <then><inhibit reason="daily limit"/></then></if>
    <else><allow/></else>
  </mechanism>
</policy>`;

/** The same decision shape, once with a PIP (ttl 1h) and once with a constant in its place. */
const roleCondition = (withPip) =>
  withPip
    ? `<pip:string method="urn:info:${S}:role" default="nobody" ttl="1h"><parameter:string name="user"><event:string eventParameter="user" jsonPathQuery="$.id" default=""/></parameter:string></pip:string>`
    : '<constant:string value="admin"/>';
const rolePolicy = (name, action, withPip) => `<policy ${NS} id="${lib.policyId(name)}">
  <mechanism event="urn:action:${S}:${action}">
    <if><equals>${roleCondition(withPip)}<constant:string value="admin"/></equals><then><allow/></then></if>
    <else><inhibit/></else>
  </mechanism>
</policy>`;

const LIMIT = 500;
const LIMIT_REQUESTS = 3 * LIMIT;
const FLOOR_ACTION = `urn:action:${S}:floor`;
const FLOOR_LOCK_KEY = '4242424242';

/** Users u0…u(n-1): each connection cycles through several bodies (autocannon `requests`). */
const bodies = (action, users) =>
  Array.from({ length: users }, (_, i) =>
    JSON.stringify({
      actionId: { scope: S, action },
      timestamp: Date.now(),
      parameters: [{ name: 'user', value: { value: { id: `u${i}`, name: { firstName: 'Ann' } }, type: 'com.acme.User', isComplex: true } }],
    }),
  );

/** A PIP answering every role question with `admin`, on 127.0.0.1, which the pdp's egress policy must allow explicitly. */
async function startPip() {
  process.env.PDP_CALL_ALLOW ??= '127.0.0.1';
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify({ value: 'admin', type: 'java.lang.String', isComplex: false }));
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  lib.onCleanup(() => new Promise((resolve) => server.close(resolve)));
  return `http://127.0.0.1:${server.address().port}`;
}

/** autocannon against every replica at once, `connections` split between them; the p99 reported is the worst replica's. */
async function acrossReplicas(pdps, headers, requestBodies, { connections, duration, title, overallRate }) {
  const share = Math.floor(connections / pdps.length);
  const runs = await Promise.all(
    pdps.map((pdp, i) =>
      lib.runLoad(
        {
          url: `${pdp.url}/event`,
          method: 'POST',
          headers,
          requests: requestBodies.map((body) => ({ method: 'POST', body })),
          connections: i === 0 ? connections - share * (pdps.length - 1) : share,
          duration,
          title: `${title}-${i}`,
          ...(overallRate ? { overallRate: Math.max(1, Math.round(overallRate / pdps.length)) } : {}),
        },
        { label: `load-${title}-${i}` },
      ),
    ),
  );
  const total = runs.reduce((sum, run) => sum + run.total, 0);
  const bad = runs.reduce((sum, run) => sum + run.non2xx + run.errors + run.timeouts, 0);
  return {
    total,
    bad,
    rps: runs.reduce((sum, run) => sum + run.requestsPerSecond, 0),
    p50: Math.max(...runs.map((run) => run.latency.p50)),
    p99: Math.max(...runs.map((run) => run.latency.p99)),
    perReplicaP99: runs.map((run) => run.latency.p99),
  };
}

/**
 * Flat out with the cheapest generator (wrk when installed, one process and thread per replica, else autocannon):
 * on 2 cores the generator's CPU is taken from the pdps and PostgreSQL, and three autocannon processes cost more
 * than the pdps' HTTP work. One body for every request (the whole-action count does not look at the user).
 */
async function flatOutCheap(pdps, headers, body, { connections, duration, title }) {
  const share = Math.floor(connections / pdps.length);
  const runs = await Promise.all(
    pdps.map((pdp, i) =>
      lib.runCheapLoad(
        { url: `${pdp.url}/event`, method: 'POST', headers, body, connections: i === 0 ? connections - share * (pdps.length - 1) : share, duration, title: `${title}-${i}` },
        { label: `load-${title}-${i}` },
      ),
    ),
  );
  return {
    generator: runs[0].generator,
    total: runs.reduce((sum, run) => sum + run.total, 0),
    bad: runs.reduce((sum, run) => sum + run.non2xx + run.errors + run.timeouts, 0),
    rps: runs.reduce((sum, run) => sum + run.requestsPerSecond, 0),
    p50: Math.max(...runs.map((run) => run.latency.p50)),
    p99: Math.max(...runs.map((run) => run.latency.p99)),
  };
}

/**
 * Open loop (scripts/bench/open-loop.mjs, its own process): `rate` decisions per second round-robin over the
 * replicas for `seconds`, each timed from the moment it was due. Every answer must be a 200 allowing the event.
 */
async function openLoop(pdps, headers, requestBodies, { rate, seconds, title }) {
  const options = { urls: pdps.map((pdp) => `${pdp.url}/event`), headers, bodies: requestBodies, rate, seconds, title, expect: 'allowed' };
  // BENCH_OPEN_LOOP_SCRIPT: another generator (e.g. an earlier open-loop.mjs) for comparing generators.
  const result = await lib.runOpenLoop(options, process.env.BENCH_OPEN_LOOP_SCRIPT);
  return { ...result, bad: result.non2xx + result.errors + result.unexpected };
}

/** The pdps' history phase histograms (pdp_history_phase_seconds) summed over replicas: {phase: {count, sum, buckets}}. */
async function historyPhases(core, pdps) {
  const phases = {};
  for (const pdp of pdps) {
    const answer = await lib.request('GET', `${pdp.url}/metrics`, { headers: { Authorization: `Bearer ${core.token}` } });
    if (answer.status !== 200) continue;
    for (const line of answer.text.split('\n')) {
      const match = /^(?:\w+_)?history_phase_seconds_(bucket|sum|count)\{([^}]*)\} ([\d.e+-]+|\+Inf)$/.exec(line);
      if (!match) continue;
      const labels = Object.fromEntries([...match[2].matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
      const entry = (phases[labels.phase] ??= { count: 0, sum: 0, buckets: new Map() });
      const value = Number(match[3]);
      if (match[1] === 'count') entry.count += value;
      else if (match[1] === 'sum') entry.sum += value;
      else entry.buckets.set(labels.le, (entry.buckets.get(labels.le) ?? 0) + value);
    }
  }
  return phases;
}

/** The difference of two historyPhases readings, as table rows: phase, count, mean ms, and the bucket bounding p99. */
function phaseRows(before, after) {
  return Object.keys(after)
    .sort()
    .map((phase) => {
      const a = after[phase];
      const b = before[phase] ?? { count: 0, sum: 0, buckets: new Map() };
      const count = a.count - b.count;
      const bounds = [...a.buckets.keys()].sort((x, y) => (x === '+Inf' ? 1 : y === '+Inf' ? -1 : Number(x) - Number(y)));
      const p99 = bounds.find((le) => a.buckets.get(le) - (b.buckets.get(le) ?? 0) >= 0.99 * count);
      const p99Text = p99 === undefined ? '–' : p99 === '+Inf' ? '> max bucket' : `≤ ${lib.fmt(Number(p99) * 1000, 2)}`;
      return [phase, String(count), count > 0 ? lib.fmt(((a.sum - b.sum) * 1000) / count, 2) : '–', p99Text];
    })
    .filter((row) => row[1] !== '0');
}

/**
 * Samples what the database's backends are doing every `everyMs` (pg_stat_activity): active on a CPU, waiting for a
 * lock (Lock:advisory = the action lock), for the WAL (IO:WALSync, LWLock:WALWrite), or idle. `stop()` resolves the
 * share of samples per state, busiest first.
 */
function sampleBackends(databaseUrl, database, everyMs = 20) {
  const { Client } = lib.require('pg');
  const client = new Client({ connectionString: databaseUrl });
  const tally = new Map();
  let samples = 0;
  let running = true;
  const loop = (async () => {
    await client.connect();
    while (running) {
      const rows = (
        await client.query(
          "SELECT state, wait_event_type, wait_event FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid() AND backend_type = 'client backend'",
          [database],
        )
      ).rows;
      samples += 1;
      for (const row of rows) {
        if (row.state === 'idle') continue;
        const key = `${row.state}${row.wait_event_type ? ` — ${row.wait_event_type}:${row.wait_event}` : ' — on CPU'}`;
        tally.set(key, (tally.get(key) ?? 0) + 1);
      }
      await lib.sleep(everyMs);
    }
    await client.end();
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return [...tally].sort((a, b) => b[1] - a[1]).map(([state, n]) => [state, lib.fmt(n / Math.max(1, samples), 2)]);
    },
  };
}

/** Records `count` events of `action` spread over today before now, as a day's traffic would have (no keys). */
async function preloadEvents(databaseUrl, action, count) {
  const { Client } = lib.require('pg');
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const now = Date.now();
    const dayStart = now - (now % 86_400_000);
    lib.log(`recording ${count} events of ${action} earlier today`);
    await client.query(
      `INSERT INTO pdp.history_events (action, solution, occurred_at, revision, keys)
       SELECT $1, $2, $3::bigint + (g * ($4::bigint - $3::bigint - 60000) / $5::bigint), 1, ARRAY[]::text[] FROM generate_series(0, $5::bigint - 1) g`,
      [action, S, dayStart, now, count],
    );
    await client.query('ANALYZE pdp.history_events');
  } finally {
    await client.end();
  }
}

/** What one count of the action's events of today costs when asked of its rows (a replica's count it does not know). */
async function recountCost(databaseUrl, action) {
  const { Client } = lib.require('pg');
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const dayStart = Date.now() - (Date.now() % 86_400_000);
    const count = () => client.query('SELECT count(*)::int AS n FROM pdp.history_events e WHERE e.action = $1 AND e.occurred_at >= $2', [action, dayStart]);
    await count();
    const started = performance.now();
    const rows = (await count()).rows[0].n;
    return { rows, ms: performance.now() - started };
  } finally {
    await client.end();
  }
}

let churned = 0;
/** Deploys a pure policy of a new action every `everyMs` until `stop()`, which resolves how many were deployed. */
function deployMeanwhile(core, everyMs) {
  let running = true;
  let deployed = 0;
  const loop = (async () => {
    while (running) {
      const policy = `churn${churned++}`;
      await lib.addPolicy(core, lib.maskPolicy(policy, policy));
      await lib.changePolicy(core, lib.policyId(policy), 'deploy');
      deployed += 1;
      await lib.sleep(everyMs);
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return deployed;
    },
  };
}

/**
 * What decisions cost while a run goes: CPU of the pdps and of the database's backends, and the transactions
 * committed in the benchmark's database (pg_stat_database), per decision answered — figures a busy machine
 * changes far less than latencies, so builds can be compared by them when the machine is not quiet.
 */
async function costMeter(core, pdps) {
  const { Client } = lib.require('pg');
  const observer = new Client({ connectionString: core.database.url });
  await observer.connect();
  const commits = async () =>
    Number((await observer.query('SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()')).rows[0].xact_commit);
  const pdpBefore = pdps.map((pdp) => lib.cpuMs(pdp.pid).total);
  const dbBefore = await databaseCpuMs(observer, core.database.name);
  const commitsBefore = await commits();
  return {
    async stop(decisions) {
      const pdpMs = pdps.reduce((sum, pdp, i) => sum + lib.cpuMs(pdp.pid).total - pdpBefore[i], 0);
      const dbMs = cpuDelta(dbBefore, await databaseCpuMs(observer, core.database.name));
      // pg_stat_database is sent by backends when they go idle, at most every second or so: a moment to settle.
      await lib.sleep(1500);
      const committed = (await commits()) - commitsBefore;
      await observer.end();
      const n = Math.max(1, decisions);
      return { pdpUs: (pdpMs * 1000) / n, dbUs: (dbMs * 1000) / n, commits: committed / n, load: loadavg()[0] };
    },
  };
}

/** Allows every event of `action` but one user's, with no history: the HTTP path and the decision log alone. */
const purePolicy = (name, action) => `<policy ${NS} id="${lib.policyId(name)}">
  <mechanism event="urn:action:${S}:${action}">
    <if><equals><event:string eventParameter="user" jsonPathQuery="$.id" default=""/><constant:string value="nobody"/></equals>
      <then><inhibit reason="nobody"/></then></if>
    <else><allow/></else>
  </mechanism>
</policy>`;

/**
 * Deploys the open-loop policies: `hotkey` (whole-action count), `peruser` (per-user count) and `purepath` (no
 * history: what the same requests cost without it, at the same rate).
 */
const OPEN_LOOP_POLICIES = [
  [actionLimitPolicy('hotkey', 'hotkey'), 'hotkey'],
  [limitPolicy('peruser', 'peruser'), 'peruser'],
  [purePolicy('purepath', 'purepath'), 'purepath'],
];

/**
 * The open-loop runs: at `rate`/s for `seconds` each, the hot key then per user (64 users), with the history
 * phases the pdps measured meanwhile.
 */
async function openLoopRuns(core, pdps, headers, { rate, seconds, deployEveryMs }) {
  const runs = [];
  for (const [label, action, history] of [
    ['one action, whole-action count (hot key)', 'hotkey', true],
    ['one action, per-user counts (64 users)', 'peruser', true],
    ['one action, no history (pure policy: the HTTP path alone)', 'purepath', false],
  ]) {
    lib.log(`open loop: ${label}, ${rate}/s over ${pdps.length} replicas, ${seconds} s`);
    const before = await historyPhases(core, pdps);
    const cost = await costMeter(core, pdps);
    const sampler = sampleBackends(core.database.url, core.database.name);
    const churn = deployEveryMs ? deployMeanwhile(core, deployEveryMs) : undefined;
    const window = { fromUs: lib.hrtimeUs(), toUs: 0 };
    const result = await openLoop(pdps, headers, bodies(action, 64), { rate, seconds, title: action });
    window.toUs = lib.hrtimeUs();
    const deployed = await churn?.stop();
    if (deployed !== undefined) lib.log(`  ${deployed} policies of other actions deployed meanwhile`);
    const backends = await sampler.stop();
    const costs = await cost.stop(result.answered);
    const after = await historyPhases(core, pdps);
    const phases = phaseRows(before, after);
    // Batches per decision: CPU per decision falls with batch size, which a loaded machine makes bigger.
    costs.batches = ((after.record?.count ?? 0) - (before.record?.count ?? 0)) / Math.max(1, result.answered);
    lib.log(
      `  achieved ${lib.fmt(result.achievedPerSecond)}/s, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, max ${result.latency.max} ms ` +
        `(generator's own send lag p99 ${result.sendLag.p99} ms${result.cpuUsPerRequest === undefined ? '' : `, its CPU ${result.cpuUsPerRequest} µs/request`}; ` +
        `${result.bad} bad: ${result.errors} errors, status ${JSON.stringify(result.statusCodes)})`,
    );
    lib.log(
      `  per decision: pdps ${lib.fmt(costs.pdpUs, 0)} µs CPU, PostgreSQL ${lib.fmt(costs.dbUs, 0)} µs CPU, ${lib.fmt(costs.commits, 2)} commits, ` +
        `${lib.fmt(costs.batches, 2)} batches; ` +
        `load average ${lib.fmt(costs.load, 1)}`,
    );
    runs.push({ label, action, history, window, result, phases, backends, costs });
  }
  return runs;
}

const openLoopRow = (run) => [
  `open loop ${run.result.rate}/s, ${run.label}`,
  lib.fmt(run.result.achievedPerSecond),
  String(run.result.latency.p50),
  String(run.result.latency.p99),
  String(run.result.latency.max),
  String(run.result.sendLag.p99),
];
const OPEN_LOOP_HEADER = ['traffic', 'achieved/s', 'p50 ms', 'p99 ms', 'max ms', 'generator lag p99 ms'];
const costRows = (runs) =>
  runs
    .filter((run) => run.costs)
    .map((run) => [
      run.label,
      lib.fmt(run.costs.pdpUs, 0),
      lib.fmt(run.costs.dbUs, 0),
      lib.fmt(run.costs.commits, 2),
      lib.fmt(run.costs.batches ?? 0, 2),
      String(run.result.cpuUsPerRequest ?? '–'),
      lib.fmt(run.costs.load, 1),
    ]);
const COST_TABLE = (runs) => ({
  caption: 'per decision answered, open loop: CPU of the pdps and of PostgreSQL\'s backends, transactions committed (with the ~50/s of the backend sampler), history batches recorded (history_phase_seconds, phase record), the generator\'s own CPU; 1-minute load average at the end',
  header: ['traffic', 'pdps µs', 'PostgreSQL µs', 'commits', 'batches', 'generator µs', 'load'],
  rows: costRows(runs),
});
const phaseTables = (runs) =>
  runs
    .filter((run) => run.phases.length > 0)
    .map((run) => ({
      caption: `history phases inside the pdps during "${run.label}" (pdp_history_phase_seconds, all replicas)`,
      header: ['phase', 'count', 'mean ms', 'p99 ms (bucket)'],
      rows: run.phases,
    }))
    .concat(
      runs.map((run) => ({
        caption: `PostgreSQL backends of the benchmark's database during "${run.label}": mean number in each state (pg_stat_activity every 20 ms)`,
        header: ['state — wait event', 'mean backends'],
        rows: run.backends,
      })),
    );

/** `--open-loop`: only the open-loop runs, on a stack of their own (for comparing pdp builds back to back). */
async function runOpenLoopOnly(options) {
  const rate = options.rate ?? 1000;
  const seconds = options.seconds ?? (options.quick ? 3 : 10);
  const replicas = options.replicas ?? REPLICAS;
  const core = await lib.startCore({ label: 'history_open' });
  try {
    let revision = 0;
    for (const [xml, policy] of OPEN_LOOP_POLICIES) {
      await lib.addPolicy(core, xml);
      revision = (await lib.changePolicy(core, lib.policyId(policy), 'deploy')).revision;
    }
    if (options.policies) {
      lib.log(`deploying ${options.policies} pure policies of other actions`);
      revision = Math.max(revision, (await lib.loadPolicies(core, { count: options.policies })).lastRevision);
    }
    const pdpEnv = {
      ...(process.env.BENCH_PDP_LOG_LEVEL ? { LOG_LEVEL: process.env.BENCH_PDP_LOG_LEVEL } : {}),
      ...(process.env.BENCH_PDP_SYNC_COMMIT ? { PDP_HISTORY_SYNC_COMMIT: process.env.BENCH_PDP_SYNC_COMMIT } : {}),
      ...(process.env.BENCH_PDP_RESYNC_MS ? { PDP_RESYNC_INTERVAL_MS: process.env.BENCH_PDP_RESYNC_MS } : {}),
    };
    const pdps = [];
    // --profile: replica 0 runs with --cpu-prof; its samples of the open-loop runs are summarised at the end.
    const profileDir = options.profile ? mkdtempSync(path.join(tmpdir(), 'custos-pdp-open-prof-')) : undefined;
    for (let i = 0; i < replicas; i++) {
      const nodeArgs = i === 0 && profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
      pdps.push(await core.startPdp({ label: `pdp-open-${i}`, nodeArgs }, pdpEnv));
    }
    // After the pdps: they create the schema. They know no counts yet, as after a start.
    if (options.preload) await preloadEvents(core.database.url, `urn:action:${S}:hotkey`, options.preload);
    for (const pdp of pdps) await lib.decide(core, pdp, 'hotkey', { minRevision: revision, body: bodies('hotkey', 1)[0] });
    const headers = { Authorization: `Bearer ${core.token}`, 'Content-Type': 'application/json' };
    lib.log('warm-up (open loop, 2 s each)');
    await openLoop(pdps, headers, bodies('hotkey', 64), { rate, seconds: 2, title: 'warm-hotkey' });
    await openLoop(pdps, headers, bodies('peruser', 64), { rate, seconds: 2, title: 'warm-peruser' });
    const deployEveryMs = Number(process.env.BENCH_DEPLOY_EVERY_MS ?? 0) || undefined;
    lib.log(`floor: one client, lock + insert + count + commit in a loop, ${seconds} s`);
    const floor = await lockedTransactionFloor(core.database.url, seconds);
    lib.log(`  ${lib.fmt(floor.perSecond)} tx/s, p50 ${lib.fmt(floor.p50)} ms, p99 ${lib.fmt(floor.p99)} ms`);
    const profiledFromUs = lib.hrtimeUs();
    const runs = await openLoopRuns(core, pdps, headers, { rate, seconds, deployEveryMs });
    const profiledToUs = lib.hrtimeUs();
    lib.log(`flat out: whole-action count (hot key), ${CONNECTIONS} connections over ${replicas} replicas, ${seconds} s`);
    const flat = await flatOutCheap(pdps, headers, bodies('hotkey', 1)[0], { connections: CONNECTIONS, duration: seconds, title: 'hotkey-flat' });
    lib.log(`  ${lib.fmt(flat.rps)} req/s (${flat.generator}), p50 ${lib.fmt(flat.p50)} ms, p99 ${lib.fmt(flat.p99)} ms, ${flat.bad} bad`);
    await lib.addPolicy(core, actionLimitPolicy('hotlimit', 'hotlimit', LIMIT));
    const limitRevision = (await lib.changePolicy(core, lib.policyId('hotlimit'), 'deploy')).revision;
    for (const pdp of pdps) await lib.decide(core, pdp, 'pure-probe', { minRevision: limitRevision });
    const exact = await limitExactness(core, pdps, 'hotlimit');
    lib.log(`exactness, action limited to ${LIMIT} as a whole: allowed ${exact.allowed}, inhibited ${exact.inhibited}, failed ${exact.failed}, recorded ${exact.recorded}`);
    const recount = await recountCost(core.database.url, `urn:action:${S}:hotkey`);
    lib.log(`  counting the hot action's events of today from its rows: ${recount.rows} rows, ${lib.fmt(recount.ms)} ms`);
    const profileTables = [];
    if (profileDir) {
      await core.stopPdp(pdps[0]);
      const file = readdirSync(profileDir).find((f) => f.endsWith('.cpuprofile'));
      if (file) {
        const summary = lib.summariseCpuProfile(path.join(profileDir, file), { fromUs: profiledFromUs, toUs: profiledToUs });
        lib.log(`CPU profile: ${path.join(profileDir, file)} (open-loop runs from ${profiledFromUs} to ${profiledToUs} µs, CLOCK_MONOTONIC)`);
        for (const run of runs) lib.log(`  ${run.action}: samples from ${run.window.fromUs} to ${run.window.toUs} µs`);
        profileTables.push(
          { caption: 'CPU profile of replica 0 during the open-loop runs: top self time by function', header: ['self ms', 'self %', 'function', 'where'], rows: summary.functions.slice(0, 25) },
          { caption: 'self time by module', header: ['self ms', 'self %', 'module'], rows: summary.modules.slice(0, 12) },
        );
      }
    }
    const build = process.env.BENCH_PDP_MAIN ? `pdp build ${process.env.BENCH_PDP_MAIN}` : 'this build';
    return {
      name,
      title: `History — open loop at ${rate}/s over ${replicas} replicas (${build})`,
      tables: [
        {
          caption: `open loop, ${seconds} s each, latency from each request's due moment; beside them the floor and the whole-action count flat out`,
          header: OPEN_LOOP_HEADER,
          rows: [
            ['floor: 1 client, lock + insert + count + durable commit', lib.fmt(floor.perSecond), lib.fmt(floor.p50), lib.fmt(floor.p99), '', ''],
            ...runs.map(openLoopRow),
            [`flat out, whole-action count, ${CONNECTIONS} connections (closed loop, ${flat.generator})`, lib.fmt(flat.rps), lib.fmt(flat.p50), lib.fmt(flat.p99), '', ''],
          ],
        },
        COST_TABLE(runs),
        ...phaseTables(runs),
        ...profileTables,
      ],
      targets: [
        ...runs.filter((run) => run.history).map((run) =>
          lib.target(`history p99 at a fixed ${rate}/s, ${run.label}, ${replicas} replicas`, `${run.result.latency.p99} ms (floor p99 ${lib.fmt(floor.p99)} ms)`, '≤ 5 ms', run.result.latency.p99 <= 5 && run.result.bad === 0),
        ),
        lib.target(`history decisions/s flat out, whole-action count, ${replicas} replicas`, `${lib.fmt(flat.rps)} (${flat.generator}; floor ${lib.fmt(floor.perSecond)} tx/s)`, '≥ 4,000', flat.rps >= 4000 && flat.bad === 0),
        lib.target(
          `allowed of ${LIMIT_REQUESTS} concurrent decisions, action limited to ${LIMIT} as a whole`,
          `${exact.allowed} (recorded ${exact.recorded}, failed ${exact.failed})`,
          `exactly ${LIMIT}`,
          exact.allowed === LIMIT && exact.recorded === LIMIT_REQUESTS && exact.failed === 0,
        ),
      ],
      notes: [
        `counting the hot action's events of today from its rows (what a replica does for a count it does not know): ${recount.rows} rows, ${lib.fmt(recount.ms)} ms` +
          (process.env.BENCH_PDP_RESYNC_MS ? `; pdps resynced every ${process.env.BENCH_PDP_RESYNC_MS} ms` : '') +
          (deployEveryMs ? `; a policy of another action deployed every ${deployEveryMs} ms during the runs` : '') +
          (options.policies ? `; ${options.policies} pure policies of other actions deployed beside` : ''),
        `load average ${loadavg().map((v) => lib.fmt(v, 1)).join(' / ')} on ${cpus().length} cores at the end; the generator's own send lag is part of the latencies.`,
      ],
      figures: { rate, seconds, replicas, recount, floor, flat, exact, runs: runs.map(({ label, result, phases, backends, costs }) => ({ label, result, phases, backends, costs })) },
    };
  } finally {
    await core.stop();
  }
}

/**
 * The floor of a decision that records under its action's lock, one at a time: one client, like pgbench, running
 * BEGIN; lock; INSERT; count; COMMIT against the same table (synchronous commit, as the pdp by default).
 */
async function lockedTransactionFloor(databaseUrl, seconds) {
  const { Client } = lib.require('pg');
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  const dayStart = Date.now() - (Date.now() % 86_400_000);
  const latencies = [];
  try {
    const deadline = performance.now() + seconds * 1000;
    while (performance.now() < deadline) {
      const started = performance.now();
      await client.query('BEGIN');
      await client.query('SELECT pg_advisory_xact_lock($1::bigint)', [FLOOR_LOCK_KEY]);
      await client.query(`INSERT INTO pdp.history_events (action, solution, occurred_at, revision, keys) VALUES ($1, '${S}', $2, 0, ARRAY['k']::text[])`, [
        FLOOR_ACTION,
        Date.now(),
      ]);
      await client.query(`SELECT count(*)::int AS n FROM pdp.history_events WHERE action = $1 AND occurred_at >= $2 AND keys @> ARRAY['k']::text[]`, [
        FLOOR_ACTION,
        dayStart,
      ]);
      await client.query('COMMIT');
      latencies.push(performance.now() - started);
    }
    await client.query('DELETE FROM pdp.history_events WHERE action = $1', [FLOOR_ACTION]);
  } finally {
    await client.end();
  }
  return { perSecond: latencies.length / seconds, p50: lib.percentile(latencies, 50), p99: lib.percentile(latencies, 99) };
}

/**
 * Exactness under load: LIMIT_REQUESTS decisions of one user on an action limited to LIMIT per day, 50 at a time
 * spread over the replicas. Every answer is read: exactly LIMIT may be allowed, and every event must be recorded.
 */
async function limitExactness(core, pdps, action) {
  const body = JSON.stringify({
    actionId: { scope: S, action },
    timestamp: Date.now(),
    parameters: [{ name: 'user', value: { value: { id: 'only-user' }, type: 'com.acme.User', isComplex: true } }],
  });
  let allowed = 0;
  let inhibited = 0;
  let failed = 0;
  await lib.pool(
    Array.from({ length: LIMIT_REQUESTS }, (_, i) => i),
    CONNECTIONS,
    async (i) => {
      const answer = await lib.decide(core, pdps[i % pdps.length], action, { body });
      if (answer.status !== 200) failed += 1;
      else if (answer.allowed === true) allowed += 1;
      else inhibited += 1;
    },
  );
  const { Client } = lib.require('pg');
  const client = new Client({ connectionString: core.database.url });
  await client.connect();
  try {
    const recorded = (await client.query('SELECT count(*)::int AS n FROM pdp.history_events WHERE action = $1', [`urn:action:${S}:${action}`])).rows[0].n;
    return { allowed, inhibited, failed, recorded };
  } finally {
    await client.end();
  }
}

/** CPU ms so far of the PostgreSQL backends serving `database` (backends that ended meanwhile are not counted). */
async function databaseCpuMs(client, database) {
  const backends = await client.query('SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [database]);
  const byPid = new Map();
  for (const { pid } of backends.rows) {
    try {
      byPid.set(pid, lib.cpuMs(pid).total);
    } catch {
      // ended between the query and the read
    }
  }
  return byPid;
}
const cpuDelta = (before, after) => [...after].reduce((sum, [pid, ms]) => sum + ms - (before.get(pid) ?? 0), 0);

/** "some" CPU pressure over the last 10 s (% of time some runnable task waited for a core), when the kernel tells. */
function cpuPressure() {
  try {
    return Number(/some avg10=([\d.]+)/.exec(readFileSync('/proc/pressure/cpu', 'utf8'))?.[1]);
  } catch {
    return NaN;
  }
}

/**
 * The group recording alone, in this process (no HTTP, no tokens, no engine): three stores with a pool each stand
 * for three replicas; `connections` loops record an event of one action, count the user's events of the day as
 * the limit policy does, and wait until the record is on disk. What the database side reaches on this machine.
 */
async function groupRecordingInProcess(databaseUrl, seconds, connections) {
  const pdpDist = (file) => lib.require(path.join(lib.ROOT, 'apps', 'pdp-service', 'dist', file));
  const { PgHistoryStore } = pdpDist('history/store.js');
  const { HistoryHasher } = pdpDist('history/hashing.js');
  const { actionLockKey } = pdpDist('history/plan.js');
  const { Pool } = lib.require('pg');
  const silent = { debug() {}, info() {}, warn() {}, error() {} };
  const hasher = new HistoryHasher('bench-in-process-secret-0123456789');
  const action = `urn:action:${S}:in-process`;
  const plan = { action, record: true, usesPorts: true, usesHistory: true, filters: [{ name: 'user', path: null }], lockKey: actionLockKey(action) };
  const pools = Array.from({ length: REPLICAS }, () => new Pool({ connectionString: databaseUrl, max: 10 }));
  const stores = pools.map((pool) => new PgHistoryStore({ pool, hasher, logger: silent }));
  const dayStart = Date.now() - (Date.now() % 86_400_000);
  const latencies = [];
  let failed = 0;
  const deadline = performance.now() + seconds * 1000;
  const loop = async (index) => {
    while (performance.now() < deadline) {
      const user = `u${Math.floor(Math.random() * 64)}`;
      const started = performance.now();
      try {
        const event = await stores[index % REPLICAS].batcher.record({
          plan,
          revision: 1,
          solution: S,
          keys: hasher.eventKeys(new Map([['user', user]]), plan.filters),
          now: Date.now(),
        });
        const query = { policyId: lib.policyId('in-process'), action, filters: [{ name: 'user', path: null, value: user }] };
        const [, durable] = await Promise.all([event.history.count(query, [{ from: dayStart, to: dayStart + 86_400_000 }]), event.durable]);
        if (!durable) failed += 1;
        latencies.push(performance.now() - started);
      } catch {
        failed += 1;
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: connections }, (_, i) => loop(i)));
    // Its events name no deployed policy: gone now rather than deleted by retention during the later runs.
    await pools[0].query('DELETE FROM pdp.history_events WHERE action = $1', [action]);
  } finally {
    await Promise.all(pools.map((pool) => pool.end()));
  }
  return { perSecond: latencies.length / seconds, p50: lib.percentile(latencies, 50), p99: lib.percentile(latencies, 99), failed };
}

/** In-process: µs per decide() of the pip policy (ttl cache warm) minus µs per decide() of the constant policy. */
async function pipCacheAddedMicros(quick) {
  const engine = lib.require(path.join(lib.ROOT, 'packages', 'policy-engine', 'dist', 'index.js'));
  const pdpDist = (file) => lib.require(path.join(lib.ROOT, 'apps', 'pdp-service', 'dist', file));
  const { HttpPipResolver } = pdpDist('pip/resolver.js');
  const { ComponentRegistry } = pdpDist('components/registry.js');
  const { CallTargets } = pdpDist('calls/http-json.js');
  const pipUrl = await startPip();
  const registry = new ComponentRegistry(
    new Map([
      [
        `urn:component:${S}:pip:roles`,
        {
          id: { componentType: 'PIP', identifier: `urn:component:${S}:pip:roles` },
          urls: [pipUrl],
          componentInterfaces: [{ type: 'InterfaceDescription', methodName: `urn:info:${S}:role`, returnType: 'java.lang.String', parameters: [] }],
        },
      ],
    ]),
  );
  const silent = { debug() {}, info() {}, warn() {}, error() {} };
  const targets = new CallTargets({ timeoutMs: 500, maxConcurrency: 32, breakerFailures: 5, breakerOpenMs: 5000 });
  const resolver = new HttpPipResolver({ targets, logger: silent, cacheEntries: 10_000 });
  const load = (xml) => {
    const outcome = engine.loadPolicy(xml);
    if (!outcome.ok) throw new Error(`bench policy refused: ${JSON.stringify(outcome.diagnostics)}`);
    return engine.createPolicySet([outcome.policy]);
  };
  const withPip = load(rolePolicy('pip-inproc', 'pip', true));
  const without = load(rolePolicy('const-inproc', 'const', false));
  const options = { defaultDecision: 'allow', timeZone: 'UTC' };
  const event = (action) => ({ action: `urn:action:${S}:${action}`, timestamp: Date.now(), parameters: new Map([['user', { id: 'u1' }]]) });
  const ports = { pip: resolver.bind(registry), clock: { now: () => Date.now() } };
  const pipEvent = event('pip');
  const constEvent = event('const');
  const first = await engine.decide(withPip, pipEvent, options, ports);
  if (!first.allowed) throw new Error('the in-process pip decision was not allowed');
  const iterations = quick ? 20_000 : 200_000;
  const time = async (run) => {
    const started = process.hrtime.bigint();
    for (let i = 0; i < iterations; i++) await run();
    return Number(process.hrtime.bigint() - started) / 1e3 / iterations;
  };
  const samples = { pip: [], constant: [] };
  for (let round = 0; round < 5; round++) {
    // Same loop shape for both (await), so only the PIP path differs.
    samples.constant.push(await time(() => engine.decide(without, constEvent, options, ports)));
    samples.pip.push(await time(() => engine.decide(withPip, pipEvent, options, ports)));
  }
  targets.close();
  const pip = lib.median(samples.pip);
  const constant = lib.median(samples.constant);
  return { pip, constant, added: pip - constant };
}

export async function run(options = {}) {
  if (options.openLoop) return runOpenLoopOnly(options);
  const quick = Boolean(options.quick);
  const duration = quick ? 3 : 10;
  const notes = [];

  const core = await lib.startCore({ label: 'history' });
  try {
    const pipUrl = await startPip();
    lib.log(`registering a PIP and deploying the benchmark policies`);
    const register = await lib.request('POST', `${core.pap.url}/ws/component`, {
      headers: { Authorization: `Bearer ${core.token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        id: { componentType: 'PIP', identifier: `urn:component:${S}:pip:roles` },
        urls: [pipUrl],
        componentInterfaces: [{ type: 'InterfaceDescription', methodName: `urn:info:${S}:role`, returnType: 'java.lang.String', parameters: [] }],
      }),
    });
    if (register.status !== 200) throw new Error(`registering the PIP answered ${register.status}: ${register.text}`);
    const policies = [
      [limitPolicy('hot', 'hot'), 'hot'],
      [limitPolicy('limited', 'limited', LIMIT), 'limited'],
      ...OPEN_LOOP_POLICIES,
      [actionLimitPolicy('hotlimit', 'hotlimit', LIMIT), 'hotlimit'],
      ...Array.from({ length: SPREAD_ACTIONS }, (_, i) => [limitPolicy(`spread${i}`, `spread${i}`), `spread${i}`]),
      [lib.maskPolicy('pure', 'pure'), 'pure'],
      [rolePolicy('pip', 'pip', true), 'pip'],
      [rolePolicy('const', 'const', false), 'const'],
    ];
    let revision = 0;
    for (const [xml, policy] of policies) {
      await lib.addPolicy(core, xml);
      revision = (await lib.changePolicy(core, lib.policyId(policy), 'deploy')).revision;
    }
    const pdps = [];
    // --profile: replica 0 runs with --cpu-prof; its samples of the one-action run are summarised at the end.
    // BENCH_PDP_LOG_LEVEL=debug (with BENCH_LOG_DIR) logs every batch recorded and every disk flush, with their times.
    const profileDir = options.profile ? mkdtempSync(path.join(tmpdir(), 'custos-pdp-history-prof-')) : undefined;
    for (let i = 0; i < REPLICAS; i++) {
      const nodeArgs = i === 0 && profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
      pdps.push(await core.startPdp({ label: `pdp-history-${i}`, nodeArgs }, process.env.BENCH_PDP_LOG_LEVEL ? { LOG_LEVEL: process.env.BENCH_PDP_LOG_LEVEL } : {}));
    }
    for (const pdp of pdps) {
      const check = await lib.decide(core, pdp, 'hot', { minRevision: revision, body: bodies('hot', 1)[0] });
      if (check.status !== 200 || check.allowed !== true) throw new Error(`unexpected history decision: ${check.status} ${JSON.stringify(check.body)}`);
    }
    const headers = { Authorization: `Bearer ${core.token}`, 'Content-Type': 'application/json' };

    lib.log(`warm-up`);
    await acrossReplicas(pdps, headers, bodies('hot', 64), { connections: CONNECTIONS, duration: quick ? 1 : 3, title: 'warm' });

    lib.log(`floor: one client, lock + insert + count + commit in a loop, ${duration} s`);
    const floor = await lockedTransactionFloor(core.database.url, duration);
    lib.log(`  ${lib.fmt(floor.perSecond)} tx/s, p50 ${lib.fmt(floor.p50)} ms, p99 ${lib.fmt(floor.p99)} ms`);

    lib.log(`group recording in-process (3 pools, ${CONNECTIONS} loops, no HTTP), ${duration} s`);
    // Another pdp build (BENCH_PDP_MAIN) may not have the schema this build's batches need: skipped then.
    const inProcessGroup = process.env.BENCH_PDP_MAIN
      ? { perSecond: NaN, p50: NaN, p99: NaN, failed: 0 }
      : await groupRecordingInProcess(core.database.url, duration, CONNECTIONS);
    lib.log(`  ${lib.fmt(inProcessGroup.perSecond)} decisions/s, p50 ${lib.fmt(inProcessGroup.p50)} ms, p99 ${lib.fmt(inProcessGroup.p99)} ms`);

    lib.log(`history decisions, one action (one lock), ${CONNECTIONS} connections over ${REPLICAS} replicas, ${duration} s`);
    const { Client } = lib.require('pg');
    const observer = new Client({ connectionString: core.database.url });
    await observer.connect();
    const loadBefore = loadavg()[0];
    const pdpCpuBefore = pdps.map((pdp) => lib.cpuMs(pdp.pid).total);
    const dbCpuBefore = await databaseCpuMs(observer, core.database.name);
    const hotFromUs = lib.hrtimeUs();
    const hot = await acrossReplicas(pdps, headers, bodies('hot', 64), { connections: CONNECTIONS, duration, title: 'hot' });
    const hotToUs = lib.hrtimeUs();
    const pdpCpu = pdps.reduce((sum, pdp, i) => sum + lib.cpuMs(pdp.pid).total - pdpCpuBefore[i], 0);
    const dbCpu = cpuDelta(dbCpuBefore, await databaseCpuMs(observer, core.database.name));
    await observer.end();
    const hotCpu = {
      pdpUs: (pdpCpu * 1000) / Math.max(1, hot.total),
      dbUs: (dbCpu * 1000) / Math.max(1, hot.total),
      load: [loadBefore, loadavg()[0]],
      pressure: cpuPressure(),
    };
    lib.log(`  ${lib.fmt(hot.rps)} req/s, p50 ${hot.p50} ms, p99 ${hot.p99} ms (per replica ${hot.perReplicaP99.join(', ')})`);
    lib.log(
      `  CPU per decision: pdps ${lib.fmt(hotCpu.pdpUs, 0)} µs, PostgreSQL ${lib.fmt(hotCpu.dbUs, 0)} µs; load ${lib.fmt(hotCpu.load[0], 1)} → ${lib.fmt(hotCpu.load[1], 1)}, CPU pressure ${lib.fmt(hotCpu.pressure, 0)} %`,
    );
    lib.log(`exactness: ${LIMIT_REQUESTS} decisions of one user limited to ${LIMIT} a day, ${CONNECTIONS} at a time over ${REPLICAS} replicas`);
    const exact = await limitExactness(core, pdps, 'limited');
    lib.log(`  allowed ${exact.allowed}, inhibited ${exact.inhibited}, failed ${exact.failed}, recorded ${exact.recorded}`);
    const rate = options.rate ?? 1000;
    const openRuns = await openLoopRuns(core, pdps, headers, { rate, seconds: duration });
    lib.log(`history decisions, whole-action count (hot key), ${CONNECTIONS} connections over ${REPLICAS} replicas, ${duration} s`);
    const hotKey = await flatOutCheap(pdps, headers, bodies('hotkey', 1)[0], { connections: CONNECTIONS, duration, title: 'hotkey' });
    lib.log(`  ${lib.fmt(hotKey.rps)} req/s (${hotKey.generator}), p50 ${lib.fmt(hotKey.p50)} ms, p99 ${lib.fmt(hotKey.p99)} ms`);
    lib.log(`exactness: ${LIMIT_REQUESTS} decisions on an action limited to ${LIMIT} a day as a whole, ${CONNECTIONS} at a time over ${REPLICAS} replicas`);
    const exactHotKey = await limitExactness(core, pdps, 'hotlimit');
    lib.log(`  allowed ${exactHotKey.allowed}, inhibited ${exactHotKey.inhibited}, failed ${exactHotKey.failed}, recorded ${exactHotKey.recorded}`);
    const spreadBodies = Array.from({ length: SPREAD_ACTIONS }, (_, i) => bodies(`spread${i}`, 4)).flat();
    lib.log(`history decisions over ${SPREAD_ACTIONS} actions, ${CONNECTIONS} connections over ${REPLICAS} replicas, ${duration} s`);
    const spread = await acrossReplicas(pdps, headers, spreadBodies, { connections: CONNECTIONS, duration, title: 'spread' });
    lib.log(`  ${lib.fmt(spread.rps)} req/s, p50 ${spread.p50} ms, p99 ${spread.p99} ms`);

    // Pure decisions at a fixed, modest rate, so that their latency (not the machine's capacity) is compared.
    const pureRate = 300;
    const pureLoad = (title) =>
      acrossReplicas(pdps, headers, [lib.eventJson('pure')], { connections: 6, duration, title, overallRate: pureRate });
    lib.log(`pure decisions at ${pureRate} req/s alone`);
    const pureAlone = await pureLoad('pure-alone');
    lib.log(`pure decisions at ${pureRate} req/s while the history traffic runs`);
    const [pureBusy, background] = await Promise.all([
      pureLoad('pure-busy'),
      acrossReplicas(pdps, headers, bodies('hot', 64), { connections: CONNECTIONS - 6, duration, title: 'background' }),
    ]);
    lib.log(`  alone p50 ${pureAlone.p50} ms p99 ${pureAlone.p99} ms; beside ${lib.fmt(background.rps)} history req/s: p50 ${pureBusy.p50} ms p99 ${pureBusy.p99} ms`);

    lib.log('PIP with ttl, answered from the cache: in-process added time');
    const inProcess = await pipCacheAddedMicros(quick);
    // Informational: the pdp's CPU per request over HTTP, PIP policy vs constant policy.
    const cpuPerRequest = async (action) => {
      const before = pdps.map((pdp) => lib.cpuMs(pdp.pid).total);
      const result = await acrossReplicas(pdps, headers, bodies(action, 16), { connections: 30, duration, title: action });
      const used = pdps.reduce((sum, pdp, i) => sum + (lib.cpuMs(pdp.pid).total - before[i]), 0);
      return { rps: result.rps, usPerRequest: (used * 1000) / Math.max(1, result.total), bad: result.bad };
    };
    const constantHttp = await cpuPerRequest('const');
    const pipHttp = await cpuPerRequest('pip');

    // The disk's share: the same one-action load on replicas that answer without waiting for the disk flush.
    lib.log(`history decisions, one action, replicas with PDP_HISTORY_SYNC_COMMIT=off, ${duration} s`);
    const asyncPdps = [];
    for (let i = 0; i < REPLICAS; i++) asyncPdps.push(await core.startPdp({ label: `pdp-history-async-${i}` }, { PDP_HISTORY_SYNC_COMMIT: 'off' }));
    // New replicas know no counts yet: a warm-up first, as for the replicas above.
    await acrossReplicas(asyncPdps, headers, bodies('hot', 64), { connections: CONNECTIONS, duration: quick ? 1 : 3, title: 'warm-async' });
    const hotAsync = await acrossReplicas(asyncPdps, headers, bodies('hot', 64), { connections: CONNECTIONS, duration, title: 'hot-async' });
    for (const pdp of asyncPdps) await core.stopPdp(pdp);
    lib.log(`  ${lib.fmt(hotAsync.rps)} req/s, p50 ${hotAsync.p50} ms, p99 ${hotAsync.p99} ms`);

    const profileTables = [];
    if (profileDir) {
      await core.stopPdp(pdps[0]);
      const file = readdirSync(profileDir).find((f) => f.endsWith('.cpuprofile'));
      if (file) {
        const summary = lib.summariseCpuProfile(path.join(profileDir, file), { fromUs: hotFromUs, toUs: hotToUs });
        profileTables.push(
          { caption: 'CPU profile of replica 0 during the one-action run: top self time by function', header: ['self ms', 'self %', 'function', 'where'], rows: summary.functions.slice(0, 20) },
          { caption: 'self time by module', header: ['self ms', 'self %', 'module'], rows: summary.modules.slice(0, 12) },
        );
        notes.push(`CPU profile: ${path.join(profileDir, file)}`);
      } else notes.push(`no CPU profile was written in ${profileDir}`);
    }
    const failures = inProcessGroup.failed + exact.failed + exactHotKey.failed + hotKey.bad + openRuns.reduce((sum, run) => sum + run.result.bad, 0) + hot.bad + hotAsync.bad + spread.bad + pureAlone.bad + pureBusy.bad + background.bad + constantHttp.bad + pipHttp.bad;
    if (failures > 0) notes.push(`${failures} requests failed or timed out during the runs (see the per-run logs above).`);
    const pureRatio = pureBusy.p99 / Math.max(0.001, pureAlone.p99);
    notes.push(
      `machine: ${REPLICAS} pdps, pap, auth, PostgreSQL and the load generators share ${cpus().length} cores; ` +
        'history decisions are recorded in batches (one statement under the action\'s lock) and answered after a disk flush shared by the batches of a replica, so their latency is at least that of a durable commit on this machine.',
    );
    notes.push(
      `with ${CONNECTIONS} connections flat out, mean latency = ${CONNECTIONS} / throughput (Little's law): p99 ≤ 5 ms needs a mean below 5 ms, i.e. ≥ ${lib.fmt(CONNECTIONS / 0.005)} decisions/s; ` +
        'and every answer waits for a durable commit, whose own p99 is the floor p99 above.',
    );
    notes.push(
      `history, one action: the pdps used ${lib.fmt(hotCpu.pdpUs, 0)} µs of CPU per decision and PostgreSQL's backends of this database ${lib.fmt(hotCpu.dbUs, 0)} µs ` +
        `(load generator not counted); 1-minute load average ${lib.fmt(hotCpu.load[0], 1)} → ${lib.fmt(hotCpu.load[1], 1)}, CPU pressure (some, 10 s) ${lib.fmt(hotCpu.pressure, 0)} % at its end.`,
    );
    notes.push(
      `pure decisions were sent at a fixed ${pureRate} req/s; "within 10 %" compares their p99 alone and beside the history load (CPU is shared, the database is not touched by them).`,
    );
    notes.push(
      `PIP ttl, in-process: ${lib.fmt(inProcess.pip, 2)} µs per decision with the cached PIP, ${lib.fmt(inProcess.constant, 2)} µs with a constant; ` +
        `over HTTP the pdps used ${lib.fmt(pipHttp.usPerRequest, 0)} µs CPU per request with the PIP and ${lib.fmt(constantHttp.usPerRequest, 0)} µs without.`,
    );
    return {
      name,
      title,
      tables: [
        {
          caption: `${CONNECTIONS} connections over ${REPLICAS} replicas, ${duration} s each (p99: the worst replica's)`,
          header: ['traffic', 'req/s', 'p50 ms', 'p99 ms'],
          rows: [
            ['floor: 1 client, lock + insert + count + commit', lib.fmt(floor.perSecond), lib.fmt(floor.p50), lib.fmt(floor.p99)],
            ['group recording in-process (no HTTP), one action', lib.fmt(inProcessGroup.perSecond), lib.fmt(inProcessGroup.p50), lib.fmt(inProcessGroup.p99)],
            ['history, one action (one lock)', lib.fmt(hot.rps), hot.p50, hot.p99],
            ['history, one action, PDP_HISTORY_SYNC_COMMIT=off', lib.fmt(hotAsync.rps), hotAsync.p50, hotAsync.p99],
            [`history, ${SPREAD_ACTIONS} actions`, lib.fmt(spread.rps), spread.p50, spread.p99],
            [`pure at ${pureRate} req/s, alone`, lib.fmt(pureAlone.rps), pureAlone.p50, pureAlone.p99],
            [`pure at ${pureRate} req/s, beside history`, lib.fmt(pureBusy.rps), pureBusy.p50, pureBusy.p99],
            ['(history beside pure)', lib.fmt(background.rps), background.p50, background.p99],
          ],
        },
        {
          caption: `issue 26: open loop over ${REPLICAS} replicas, ${duration} s each, latency from each request's due moment; beside it the whole-action count flat out`,
          header: OPEN_LOOP_HEADER,
          rows: [
            ...openRuns.map(openLoopRow),
            ['floor: 1 client, lock + insert + count + durable commit', lib.fmt(floor.perSecond), lib.fmt(floor.p50), lib.fmt(floor.p99), '', ''],
            [`flat out, whole-action count, ${CONNECTIONS} connections (closed loop, ${hotKey.generator})`, lib.fmt(hotKey.rps), lib.fmt(hotKey.p50), lib.fmt(hotKey.p99), '', ''],
          ],
        },
        COST_TABLE(openRuns),
        ...phaseTables(openRuns),
        ...profileTables,
      ],
      targets: [
        lib.target('history p99, one action, 50 clients / 3 replicas', `${hot.p99} ms`, '≤ 5 ms', hot.p99 <= 5),
        lib.target(
          'history decisions/s, one action, 50 clients / 3 replicas',
          `${lib.fmt(hot.rps)} (${lib.fmt(hot.rps / floor.perSecond)}× the 1-client floor of ${lib.fmt(floor.perSecond)} tx/s)`,
          '≥ 3,000',
          hot.rps >= 3000,
        ),
        lib.target('floor p99: 1 client, lock + insert + count + durable commit', `${lib.fmt(floor.p99)} ms`, 'info', undefined),
        lib.target(
          `allowed of ${LIMIT_REQUESTS} concurrent decisions limited to ${LIMIT}`,
          `${exact.allowed} (recorded ${exact.recorded}, failed ${exact.failed})`,
          `exactly ${LIMIT}`,
          exact.allowed === LIMIT && exact.recorded === LIMIT_REQUESTS && exact.failed === 0,
        ),
        lib.target(
          `issue 26: history p99 at a fixed ${rate}/s (open loop), one action counted as a whole, ${REPLICAS} replicas`,
          `${openRuns[0].result.latency.p99} ms (floor p99 ${lib.fmt(floor.p99)} ms)`,
          '≤ 5 ms',
          openRuns[0].result.latency.p99 <= 5 && openRuns[0].result.bad === 0,
        ),
        lib.target(
          `issue 26: history p99 at a fixed ${rate}/s (open loop), per-user counts, ${REPLICAS} replicas`,
          `${openRuns[1].result.latency.p99} ms`,
          'info',
          undefined,
        ),
        lib.target(
          'issue 26: history decisions/s flat out, one action counted as a whole, 50 clients / 3 replicas',
          `${lib.fmt(hotKey.rps)} (${hotKey.generator}; ${lib.fmt(hotKey.rps / floor.perSecond)}× the 1-client floor)`,
          '≥ 4,000',
          hotKey.rps >= 4000 && hotKey.bad === 0,
        ),
        lib.target(
          `issue 26: allowed of ${LIMIT_REQUESTS} concurrent decisions, action limited to ${LIMIT} as a whole`,
          `${exactHotKey.allowed} (recorded ${exactHotKey.recorded}, failed ${exactHotKey.failed})`,
          `exactly ${LIMIT}`,
          exactHotKey.allowed === LIMIT && exactHotKey.recorded === LIMIT_REQUESTS && exactHotKey.failed === 0,
        ),
        lib.target(`history p99, ${SPREAD_ACTIONS} actions, 50 clients / 3 replicas`, `${spread.p99} ms`, '≤ 5 ms', spread.p99 <= 5),
        lib.target('pure p99 beside history / alone', `${lib.fmt(pureRatio)}×`, '≤ 1.10×', pureRatio <= 1.1),
        lib.target('PIP ttl cache hit, added time per decision', `${lib.fmt(inProcess.added, 2)} µs`, '≤ 20 µs', inProcess.added <= 20),
      ],
      notes,
      figures: { floor, inProcessGroup, hotCpu, exact, exactHotKey, hotKey, openRuns, hot, hotAsync, spread, pureAlone, pureBusy, background, inProcess, constantHttp, pipHttp },
    };
  } finally {
    await core.stop();
  }
}

await lib.runStandalone(import.meta.url, run);
