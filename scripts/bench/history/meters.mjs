// What the history benchmark reads beside its load: the pdps' history phases, PostgreSQL backends and their CPU,
// events recorded beforehand, a recount's cost, policies deployed meanwhile, CPU pressure.
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import * as lib from '../lib.mjs';
import { S } from './policies.mjs';

/** The pdps' history phase histograms (pdp_history_phase_seconds) summed over replicas: {phase: {count, sum, buckets}}. */
export async function historyPhases(core, pdps) {
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
export function phaseRows(before, after) {
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
export function sampleBackends(databaseUrl, database, everyMs = 20) {
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
export async function preloadEvents(databaseUrl, action, count) {
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
export async function recountCost(databaseUrl, action) {
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
export function deployMeanwhile(core, everyMs) {
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
export async function costMeter(core, pdps) {
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

/** CPU ms so far of the PostgreSQL backends serving `database` (backends that ended meanwhile are not counted). */
export async function databaseCpuMs(client, database) {
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
export const cpuDelta = (before, after) => [...after].reduce((sum, [pid, ms]) => sum + ms - (before.get(pid) ?? 0), 0);

/** "some" CPU pressure over the last 10 s (% of time some runnable task waited for a core), when the kernel tells. */
export function cpuPressure() {
  try {
    return Number(/some avg10=([\d.]+)/.exec(readFileSync('/proc/pressure/cpu', 'utf8'))?.[1]);
  } catch {
    return NaN;
  }
}
