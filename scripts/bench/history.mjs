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
//        BENCH_PDP_BATCH_WINDOW_MS=<ms> sets the pdps' PDP_HISTORY_BATCH_WINDOW_MS (how long a batch waits for company);
//        BENCH_PDP_RESYNC_MS=<ms> sets the pdps' periodic resync (PDP_RESYNC_INTERVAL_MS; 30 s by default);
//        BENCH_DEPLOY_EVERY_MS=<ms> deploys a policy of another action that often during the runs (new revisions).
//
// Everything runs on the machine's PostgreSQL and NATS; the stack, its database and NATS stream are removed afterwards.
import { mkdtempSync, readdirSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import * as lib from './lib.mjs';
import { groupRecordingInProcess, limitExactness, lockedTransactionFloor, pipCacheAddedMicros } from './history/floors.mjs';
import { acrossReplicas, flatOutCheap, startPip } from './history/load.mjs';
import { cpuDelta, cpuPressure, databaseCpuMs } from './history/meters.mjs';
import { COST_TABLE, OPEN_LOOP_HEADER, openLoopRow, openLoopRuns, phaseTables, runOpenLoopOnly } from './history/open-loop.mjs';
import { CONNECTIONS, LIMIT, LIMIT_REQUESTS, OPEN_LOOP_POLICIES, REPLICAS, S, SPREAD_ACTIONS, actionLimitPolicy, bodies, limitPolicy, rolePolicy } from './history/policies.mjs';

export const name = 'history';
export const title = 'History — history-using decisions on 3 replicas, pure decisions beside them, PIP ttl cache';

export async function run(options = {}) {
  // The benchmark's name first, as in every result (the runner and --json key on it).
  if (options.openLoop) return { name, ...(await runOpenLoopOnly(options)) };
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
        profileTables.push(...lib.profileTables(summary, 'CPU profile of replica 0 during the one-action run', { functions: 20, modules: 12 }));
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
