// `--open-loop` of the history benchmark (issue 26): the open-loop runs alone on a stack of their own.
import { mkdtempSync, readdirSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import * as lib from '../lib.mjs';
import { limitExactness, lockedTransactionFloor } from './floors.mjs';
import { flatOutCheap, openLoop } from './load.mjs';
import { costMeter, deployMeanwhile, historyPhases, phaseRows, preloadEvents, recountCost, sampleBackends } from './meters.mjs';
import { WAKEUP_HEADER, wakeupMeter } from './wakeups.mjs';
import { CONNECTIONS, LIMIT, LIMIT_REQUESTS, OPEN_LOOP_POLICIES, REPLICAS, S, actionLimitPolicy, bodies } from './policies.mjs';

/**
 * The open-loop runs: at `rate`/s for `seconds` each, the hot key then per user (64 users), with the history
 * phases the pdps measured meanwhile.
 */
export async function openLoopRuns(core, pdps, headers, { rate, seconds, deployEveryMs }) {
  const runs = [];
  for (const [label, action, history] of [
    ['one action, whole-action count (hot key)', 'hotkey', true],
    ['one action, per-user counts (64 users)', 'peruser', true],
    ['one action, no history (pure policy: the HTTP path alone)', 'purepath', false],
  ]) {
    lib.log(`open loop: ${label}, ${rate}/s over ${pdps.length} replicas, ${seconds} s`);
    const before = await historyPhases(core, pdps);
    const cost = await costMeter(core, pdps);
    const wakes = await wakeupMeter(core, pdps);
    const sampler = sampleBackends(core.database.url, core.database.name);
    const churn = deployEveryMs ? deployMeanwhile(core, deployEveryMs) : undefined;
    const window = { fromUs: lib.hrtimeUs(), toUs: 0 };
    const result = await openLoop(pdps, headers, bodies(action, 64), { rate, seconds, title: action });
    window.toUs = lib.hrtimeUs();
    const deployed = await churn?.stop();
    if (deployed !== undefined) lib.log(`  ${deployed} policies of other actions deployed meanwhile`);
    const wakeups = wakes.stop(result.answered);
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
    runs.push({ label, action, history, window, result, phases, backends, costs, wakeups });
  }
  return runs;
}

export const openLoopRow = (run) => [
  `open loop ${run.result.rate}/s, ${run.label}`,
  lib.fmt(run.result.achievedPerSecond),
  String(run.result.latency.p50),
  String(run.result.latency.p99),
  String(run.result.latency.max),
  String(run.result.sendLag.p99),
];
export const OPEN_LOOP_HEADER = ['traffic', 'achieved/s', 'p50 ms', 'p99 ms', 'max ms', 'generator lag p99 ms'];
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
export const COST_TABLE = (runs) => ({
  caption: 'per decision answered, open loop: CPU of the pdps and of PostgreSQL\'s backends, transactions committed (with the ~50/s of the backend sampler), history batches recorded (history_phase_seconds, phase record), the generator\'s own CPU; 1-minute load average at the end',
  header: ['traffic', 'pdps µs', 'PostgreSQL µs', 'commits', 'batches', 'generator µs', 'load'],
  rows: costRows(runs),
});
export const phaseTables = (runs) =>
  runs
    .filter((run) => run.phases.length > 0)
    .map((run) => ({
      caption: `history phases inside the pdps during "${run.label}" (pdp_history_phase_seconds, all replicas)`,
      header: ['phase', 'count', 'mean ms', 'p99 ms (bucket)'],
      rows: run.phases,
    }))
    .concat(
      runs
        .filter((run) => run.wakeups)
        .map((run) => ({
          caption: `per decision answered during "${run.label}": CPU and wake-ups (voluntary context switches) of each process and thread (/proc)`,
          header: WAKEUP_HEADER,
          rows: run.wakeups,
        })),
    )
    .concat(
      runs.map((run) => ({
        caption: `PostgreSQL backends of the benchmark's database during "${run.label}": mean number in each state (pg_stat_activity every 20 ms)`,
        header: ['state — wait event', 'mean backends'],
        rows: run.backends,
      })),
    );

/** `--open-loop`: only the open-loop runs, on a stack of their own (for comparing pdp builds back to back); the result
 * without its name, which history.mjs adds. */
export async function runOpenLoopOnly(options) {
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
      ...(process.env.BENCH_PDP_BATCH_WINDOW_MS ? { PDP_HISTORY_BATCH_WINDOW_MS: process.env.BENCH_PDP_BATCH_WINDOW_MS } : {}),
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
        profileTables.push(...lib.profileTables(summary, 'CPU profile of replica 0 during the open-loop runs', { functions: 25, modules: 12 }));
      }
    }
    const build = process.env.BENCH_PDP_MAIN ? `pdp build ${process.env.BENCH_PDP_MAIN}` : 'this build';
    return {
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
      figures: { rate, seconds, replicas, recount, floor, flat, exact, runs: runs.map(({ label, result, phases, backends, costs, wakeups }) => ({ label, result, phases, backends, costs, wakeups })) },
    };
  } finally {
    await core.stop();
  }
}
