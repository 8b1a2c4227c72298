// The history benchmark's floors and checks beside the pdps: one locked transaction at a time, the exactness of a
// limit, the group recording in this process, and the PIP ttl cache's added time in process.
import path from 'node:path';
import * as lib from '../lib.mjs';
import { startPip } from './load.mjs';
import { CONNECTIONS, FLOOR_ACTION, FLOOR_LOCK_KEY, LIMIT_REQUESTS, REPLICAS, S, rolePolicy } from './policies.mjs';

/**
 * The floor of a decision that records under its action's lock, one at a time: one client, like pgbench, running
 * BEGIN; lock; INSERT; count; COMMIT against the same table (synchronous commit, as the pdp by default).
 */
export async function lockedTransactionFloor(databaseUrl, seconds) {
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
export async function limitExactness(core, pdps, action) {
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

/**
 * The group recording alone, in this process (no HTTP, no tokens, no engine): three stores with a pool each stand
 * for three replicas; `connections` loops record an event of one action, count the user's events of the day as
 * the limit policy does, and wait until the record is on disk. What the database side reaches on this machine.
 */
export async function groupRecordingInProcess(databaseUrl, seconds, connections) {
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
export async function pipCacheAddedMicros(quick) {
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
