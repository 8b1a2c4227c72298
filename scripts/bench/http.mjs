// Benchmark 2 of issue 6 — HTTP: POST /event on one pdp holding 1,000 deployed policies, 50 keep-alive
// connections from wrk (one thread; autocannon when wrk is not installed, said so in the output), side by
// side with the floor: a bare node:http server (scripts/bench/floor-server.mjs) doing the same JSON.parse
// and a fixed reply of the same size. The generator shares the 2 cores with the server, so the cheapest one
// is used: every µs it spends is taken from the server under test.
// Targets (issues 11 and 26): throughput ≥ 0.6 × floor with decision logging on (LOG_LEVEL=info, stdout to
// /dev/null) in every round; p99 ≤ 5 ms at 50 connections. Informational: the same pdp with LOG_LEVEL=warn (no
// decision lines), to price the log.
// Open loop (issue 26): then a fixed rate of half the pdp's measured maximum (the median of its rounds), each request
// timed from the moment it was due (scripts/bench/open-loop.mjs), against the pdp and the floor at the same
// rate, alternating; target p99 ≤ 2 ms for the pdp.
// `--profile` adds a CPU profile (node --cpu-prof) of a pdp under the same load and prints its top
// self-time functions and modules.
import { cpus, loadavg } from 'node:os';
import path from 'node:path';
import * as lib from './lib.mjs';
import { profilePdp } from './http/profile.mjs';

export const name = 'http';
export const title = 'HTTP — POST /event, one pdp with 1,000 deployed policies, 50 keep-alive connections';

const POLICIES = 1000;
/** Issue 11: /event with the decision log on reaches at least this share of the floor's throughput. */
const RATIO_TARGET = 0.6;
/** Issue 26: p99 at a fixed rate of half the measured maximum, in ms. */
const OPEN_LOOP_P99_TARGET = 2;

export async function run(options = {}) {
  const quick = Boolean(options.quick);
  // Many short rounds rather than few long ones: on a shared machine the load of other work changes
  // within seconds, and a ratio taken within one round compares runs a few seconds apart.
  const seconds = quick ? 2 : 5;
  const rounds = quick ? 3 : 7;
  const warmSeconds = quick ? 1 : 3;
  const connections = 50;
  const notes = [];
  const loadBefore = loadavg();

  const generator = lib.wrkPath() ? 'wrk' : 'autocannon';
  if (generator === 'autocannon') {
    lib.log(
      'wrk is not installed (Debian: `apt-get install -y wrk`): falling back to autocannon, which takes several times ' +
        "more CPU per request from the cores the server needs, so the ratios below understate the server",
    );
  } else lib.log(`load generator: wrk (${lib.wrkPath()}), one thread`);
  const core = await lib.startCore({ label: 'http' });
  const floorProc = { stop: async () => undefined };
  try {
    lib.log(`adding and deploying ${POLICIES} policies (one action each) through pap`);
    const loaded = await lib.loadPolicies(core, { count: POLICIES, concurrency: 8 });
    lib.log(`loaded in ${lib.fmt(loaded.seconds)} s`);

    const pdp = await core.startPdp({ label: 'pdp-http-info' });
    const pdpQuiet = await core.startPdp({ label: 'pdp-http-warn' }, { LOG_LEVEL: 'warn' });
    // Issue 24: the same pdp publishing decision records to the stream (PDP_DECISION_RECORDS=on; off by default), to price them.
    const pdpRecords = await core.startPdp({ label: 'pdp-http-records' }, { PDP_DECISION_RECORDS: 'on' });
    // BENCH_PDP_BASELINE_MAIN=<main.js of another build>: that build too, side by side, to price a change of the hot path.
    const baselineMain = process.env.BENCH_PDP_BASELINE_MAIN;
    const baseline = baselineMain ? await core.startPdp({ label: 'pdp-http-baseline', main: baselineMain }) : undefined;
    const floorPort = await lib.testKit().freePort();
    Object.assign(floorProc, lib.spawnNode(path.join(lib.BENCH_DIR, 'floor-server.mjs'), { args: [String(floorPort)], label: 'floor' }));
    const stopFloor = lib.onCleanup(() => floorProc.stop());
    const floorUrl = `http://127.0.0.1:${floorPort}`;
    await lib.waitUntil(async () => (await lib.request('GET', floorUrl, { keepAlive: false })).status === 200, { what: 'the floor server' });

    // The event matches exactly one of the 1,000 policies (p0 on action a0), which modifies it.
    const action = 'a0';
    const body = lib.eventJson(action);
    const sanity = await lib.decide(core, pdp, action);
    if (sanity.status !== 200 || sanity.allowed !== true || sanity.body.modifiers?.length !== 1 || sanity.revision !== loaded.lastRevision) {
      throw new Error(`unexpected decision before the load: ${sanity.status} revision ${sanity.revision} ${JSON.stringify(sanity.body)}`);
    }
    const status = (await lib.request('GET', `${pdp.url}/status`)).json();
    if (status.policies !== POLICIES) throw new Error(`the pdp holds ${status.policies} policies, expected ${POLICIES}`);

    const headers = { Authorization: `Bearer ${core.token}`, 'Content-Type': 'application/json' };
    const variants = [
      { key: 'floor', label: 'bare node:http (floor)', url: `${floorUrl}/event`, pid: floorProc.pid },
      { key: 'pdp', label: 'pdp, decision log on (info)', url: `${pdp.url}/event`, pid: pdp.pid },
      { key: 'pdpQuiet', label: 'pdp, LOG_LEVEL=warn', url: `${pdpQuiet.url}/event`, pid: pdpQuiet.pid },
      { key: 'pdpRecords', label: 'pdp, log on, decision records on', url: `${pdpRecords.url}/event`, pid: pdpRecords.pid },
      ...(baseline ? [{ key: 'baseline', label: `baseline build (${baselineMain}), log on`, url: `${baseline.url}/event`, pid: baseline.pid }] : []),
    ];
    // Each run also measures the server's CPU time per request (/proc/<pid>/stat, all threads and the
    // main thread): less noisy than req/s on a shared machine, and it sees work off the main thread.
    const load = async (variant, duration) => {
      const before = lib.cpuMs(variant.pid);
      const result = await lib.runCheapLoad(
        { url: variant.url, method: 'POST', headers, body, connections, duration, title: variant.key },
        { label: `load-${variant.key}` },
      );
      const after = lib.cpuMs(variant.pid);
      result.cpuUsPerRequest = ((after.total - before.total) * 1000) / Math.max(1, result.total);
      result.mainUsPerRequest = ((after.main - before.main) * 1000) / Math.max(1, result.total);
      return result;
    };

    lib.log(`warm-up ${warmSeconds} s each`);
    for (const variant of variants) await load(variant, warmSeconds);
    const results = await lib.rotatedRounds(
      variants,
      rounds,
      (variant) => load(variant, seconds),
      (_, result) => `${lib.fmt(result.requestsPerSecond)} req/s, p50 ${lib.fmt(result.latency.p50)} ms, p99 ${lib.fmt(result.latency.p99)} ms`,
    );
    const rssAfterLoad = lib.rssMb(pdp.pid);
    // What became of the records of the pdp with records on: published, or dropped by a full buffer.
    const recordCounts = decisionRecordCounts((await lib.request('GET', `${pdpRecords.url}/metrics`)).text);

    const summary = {};
    for (const variant of variants) {
      const runs = results[variant.key];
      // The ratio of each round (this variant against the floor of the same round), then their median.
      const ratios = runs.map((r, round) => r.requestsPerSecond / results.floor[round].requestsPerSecond);
      const cpuRatios = runs.map((r, round) => results.floor[round].cpuUsPerRequest / r.cpuUsPerRequest);
      summary[variant.key] = {
        ratio: lib.median(ratios),
        ratios,
        cpuRatio: lib.median(cpuRatios),
        rps: lib.median(runs.map((r) => r.requestsPerSecond)),
        p50: lib.median(runs.map((r) => r.latency.p50)),
        p99: lib.median(runs.map((r) => r.latency.p99)),
        max: Math.max(...runs.map((r) => r.latency.max)),
        cpuUs: lib.median(runs.map((r) => r.cpuUsPerRequest)),
        mainUs: lib.median(runs.map((r) => r.mainUsPerRequest)),
        problems: runs.reduce((sum, r) => sum + r.errors + r.timeouts + r.non2xx, 0),
        total: runs.reduce((sum, r) => sum + r.total, 0),
        all: runs.map((r) => Math.round(r.requestsPerSecond)),
      };
    }
    const floor = summary.floor.rps;
    const floorMin = Math.min(...results.floor.map((r) => r.requestsPerSecond));
    const floorMax = Math.max(...results.floor.map((r) => r.requestsPerSecond));

    // Latency with less queueing: 50 connections flat out queue by Little's law (mean latency ≈
    // 50 / throughput), so also one run with 10 connections.
    const light = await lib.runCheapLoad(
      { url: `${pdp.url}/event`, method: 'POST', headers, body, connections: 10, duration: seconds, title: 'light' },
      { label: 'load-light' },
    );
    lib.log(`pdp with 10 connections: ${lib.fmt(light.requestsPerSecond)} req/s, p50 ${lib.fmt(light.latency.p50)} ms, p99 ${lib.fmt(light.latency.p99)} ms`);

    // Open loop at half the pdp's maximum: the pdp and the floor at the same rate, alternating, two runs each.
    // The pdps the open loop does not measure are stopped first: each idle one still fetches a snapshot of 1,000
    // policies from pap every 30 s (PDP_RESYNC_INTERVAL_MS), work of a replica on another machine in a deployment
    // that here takes a core from the two the generator and the measured server share, inside a 10-second run.
    await core.stopPdp(pdpQuiet);
    await core.stopPdp(pdpRecords);
    const openRate = Math.max(100, Math.round(summary.pdp.rps / 2 / 100) * 100);
    const openSeconds = quick ? 3 : 10;
    const openVariants = variants.filter((variant) => variant.key !== 'pdpQuiet' && variant.key !== 'pdpRecords');
    const openRuns = Object.fromEntries(openVariants.map((variant) => [variant.key, []]));
    lib.log(`open loop at ${openRate}/s (half the pdp's median), ${openSeconds} s per run`);
    for (let run = 0; run < 2; run++) {
      for (const variant of run === 0 ? [...openVariants].reverse() : openVariants) {
        // One second at the rate first, not counted: the generator's connections and code warm, as the server's are.
        const result = await lib.runOpenLoop({ urls: [variant.url], headers, bodies: [body], rate: openRate, seconds: openSeconds, warmupSeconds: 1, title: variant.key });
        openRuns[variant.key].push(result);
        lib.log(
          `open loop ${variant.key}: p50 ${lib.fmt(result.latency.p50, 3)} ms, p99 ${lib.fmt(result.latency.p99, 3)} ms, max ${lib.fmt(result.latency.max)} ms ` +
            `(${lib.fmt(result.achievedPerSecond)}/s answered; from the write p99 ${lib.fmt(result.fromSend.p99, 3)} ms; generator late p99 ` +
            `${lib.fmt(result.sendLag.p99, 3)} ms, ${lib.fmt(result.cpuUsPerRequest, 1)} µs CPU per request; ${result.non2xx + result.errors} failed)`,
        );
      }
    }
    // The worse of the two runs: the target must hold in each.
    const openWorst = (key) => openRuns[key].reduce((worst, r) => (r.latency.p99 > worst.latency.p99 ? r : worst));
    const openPdp = openWorst('pdp');
    const openFloor = openWorst('floor');
    const openFailed = Object.values(openRuns).flat().reduce((sum, r) => sum + r.non2xx + r.errors, 0);

    const rows = variants.map((variant) => {
      const s = summary[variant.key];
      return [
        variant.label,
        lib.fmt(s.rps),
        lib.fmt(s.ratio, 2),
        lib.fmt(s.cpuRatio, 2),
        lib.fmt(s.p50),
        lib.fmt(s.p99),
        lib.fmt(s.max),
        lib.fmt(s.cpuUs, 1),
        lib.fmt(s.cpuUs - s.mainUs, 1),
        String(s.problems),
        s.ratios.map((r) => lib.fmt(r, 2)).join(' '),
      ];
    });

    rows.push([
      'pdp, log on, 10 connections',
      lib.fmt(light.requestsPerSecond),
      lib.fmt(light.requestsPerSecond / floor, 2),
      '–',
      lib.fmt(light.latency.p50),
      lib.fmt(light.latency.p99),
      lib.fmt(light.latency.max),
      '–',
      '–',
      String(light.errors + light.timeouts + light.non2xx),
      '1 run, against the median floor',
    ]);
    const openRows = openVariants.map((variant) => {
      const runs = openRuns[variant.key];
      return [
        variant.label,
        lib.fmt(openRate),
        runs.map((r) => lib.fmt(r.latency.p50, 3)).join(' / '),
        runs.map((r) => lib.fmt(r.latency.p90, 3)).join(' / '),
        runs.map((r) => lib.fmt(r.latency.p99, 3)).join(' / '),
        runs.map((r) => lib.fmt(r.latency.p999, 3)).join(' / '),
        runs.map((r) => lib.fmt(r.latency.max)).join(' / '),
        runs.map((r) => lib.fmt(r.sendLag.p99, 3)).join(' / '),
        runs.map((r) => lib.fmt(r.fromSend.p99, 3)).join(' / '),
        runs.map((r) => lib.fmt(r.cpuUsPerRequest, 1)).join(' / '),
        String(runs.reduce((sum, r) => sum + r.non2xx + r.errors, 0)),
      ];
    });
    const tables = [
      {
        caption:
          `${rounds} rounds × ${seconds} s per server, order rotated; medians of the rounds. × floor: the median of the rounds' ratios ` +
          '(req/s against the floor of the same round); × floor by CPU: the floor\'s CPU µs per request over this server\'s (what each ' +
          `would reach with a core of its own), median of the rounds. Load: ${generator}` +
          `${generator === 'wrk' ? ' (one thread; latency in ms, µs resolution). ' : ' (wrk not installed; latency in whole ms). '}` +
          'CPU µs/req: server process CPU (all threads) per answered request; off-main: the part outside the main thread (the log writer thread, GC helpers, libuv pool).',
        header: ['server', 'req/s', '× floor', '× floor by CPU', 'p50', 'p99', 'max', 'CPU µs/req', 'off-main µs/req', 'errors', '× floor per round'],
        rows,
      },
      {
        caption:
          `Open loop at a fixed ${lib.fmt(openRate)} requests/s (half the pdp's median above), ${openSeconds} s per run, two runs each ` +
          '(run 1 / run 2), pdp and floor alternating: each request timed from the moment it was due, so queueing anywhere counts ' +
          '(scripts/bench/open-loop.mjs: plain keep-alive sockets opened before the clock starts, one request in flight per ' +
          'connection, 1 s at the rate first, not counted). Latency in ms; generator late: how late the generator itself sent ' +
          '(its timers fire on whole ms; a busy machine), included in the latencies; p99 from the write: the same requests timed ' +
          'from the moment each was written, the server\'s share; generator CPU: its own µs per request, taken from the same 2 cores.',
        header: ['server', 'rate/s', 'p50', 'p90', 'p99', 'p99.9', 'max', 'generator late p99', 'p99 from the write', 'generator CPU µs/req', 'errors'],
        rows: openRows,
      },
    ];
    notes.push(
      `pdp RSS: ${lib.fmt(pdp.rssAtReadyMb, 0)} MB at ready, ${lib.fmt(rssAfterLoad, 0)} MB after ${lib.fmt(summary.pdp.total)} decisions.`,
      `Load average before and after: ${loadBefore.map((l) => lib.fmt(l, 2)).join(' ')} → ${loadavg().map((l) => lib.fmt(l, 2)).join(' ')} (${cpus().length} cores).`,
      `The decision log costs ${lib.fmt(summary.pdp.cpuUs - summary.pdpQuiet.cpuUs, 1)} µs CPU per decision (info vs warn, same run); ` +
        `by CPU the pdp reaches ${lib.fmt(summary.pdp.cpuRatio, 2)} × floor with it and ${lib.fmt(summary.pdpQuiet.cpuRatio, 2)} × without.`,
      `Decision records (issue 24, PDP_DECISION_RECORDS=on) cost ${lib.fmt(summary.pdpRecords.cpuUs - summary.pdp.cpuUs, 1)} µs CPU per decision in the pdp ` +
        `(${lib.fmt(summary.pdpRecords.cpuUs, 1)} µs with them, ${lib.fmt(summary.pdp.cpuUs, 1)} µs without, same run; NATS's own work is not counted); ` +
        `by CPU the pdp reaches ${lib.fmt(summary.pdpRecords.cpuRatio, 2)} × floor with them and ${lib.fmt(summary.pdp.cpuRatio, 2)} × without, ` +
        `by req/s ${lib.fmt(summary.pdpRecords.ratio, 2)} × and ${lib.fmt(summary.pdp.ratio, 2)} ×. Records of the pdp with them: ` +
        `${lib.fmt(recordCounts.published)} published, ${lib.fmt(recordCounts.dropped)} dropped (buffer full), ${lib.fmt(recordCounts.failed)} failed.`,
      ...(floorMax > 1.5 * floorMin
        ? [
            `The machine's load changed during the run: the floor alone ranged ${lib.fmt(floorMin)}–${lib.fmt(floorMax)} req/s ` +
              'over the rounds, so the throughput ratio is noisy; read the ratio by CPU per request beside it.',
          ]
        : []),
      ...(summary.baseline
        ? [
            `This build over the baseline build: ${lib.fmt(summary.pdp.rps / summary.baseline.rps, 2)} × its req/s (medians), ` +
              `${lib.fmt(summary.baseline.cpuUs / summary.pdp.cpuUs, 2)} × by CPU per request (${lib.fmt(summary.pdp.cpuUs, 1)} vs ${lib.fmt(summary.baseline.cpuUs, 1)} µs), ` +
              `× floor by CPU ${lib.fmt(summary.pdp.cpuRatio, 2)} vs ${lib.fmt(summary.baseline.cpuRatio, 2)}.`,
          ]
        : []),
      `Load generator, floor and pdp share the same 2 cores: the floor is what node:http reaches on this machine with ${generator} beside it, not a hardware limit.`,
      `With 50 connections flat out, mean latency ≈ 50 / throughput (Little's law): ${lib.fmt(50000 / summary.pdp.rps, 1)} ms at ${lib.fmt(summary.pdp.rps)} req/s.`,
    );

    if (options.profile) {
      const profile = await profilePdp(core, { headers, body, connections, seconds });
      tables.push(...profile.tables);
      notes.push(profile.note);
    }

    await stopFloor();
    return {
      name,
      title,
      tables,
      targets: [
        lib.target(
          `throughput ratio, log on (${generator})`,
          `${lib.fmt(summary.pdp.ratio, 2)} × floor (median of ${rounds} rounds, ${lib.fmt(Math.min(...summary.pdp.ratios), 2)}–` +
            `${lib.fmt(Math.max(...summary.pdp.ratios), 2)}; ${lib.fmt(summary.pdp.rps)} vs ${lib.fmt(floor)} req/s)`,
          `≥ ${RATIO_TARGET}`,
          summary.pdp.ratio >= RATIO_TARGET,
        ),
        // CPU per request moves far less with the machine's load than req/s does: the figure to read beside the ratio.
        lib.target(
          'throughput ratio by CPU per request, log on',
          `${lib.fmt(summary.pdp.cpuRatio, 2)} × floor (${lib.fmt(summary.floor.cpuUs, 1)} vs ${lib.fmt(summary.pdp.cpuUs, 1)} µs per request)`,
          'info',
          undefined,
        ),
        lib.target('p99 latency, log on, 50 connections flat out', `${lib.fmt(summary.pdp.p99)} ms`, '≤ 5 ms', summary.pdp.p99 <= 5),
        lib.target('p99 latency, log on, 10 connections', `${lib.fmt(light.latency.p99)} ms`, 'info', undefined),
        lib.target(
          `p99 latency, log on, open loop at ${lib.fmt(openRate)}/s (half the maximum)`,
          `${lib.fmt(openPdp.latency.p99, 3)} ms (worse of 2 runs; the floor at the same rate: ${lib.fmt(openFloor.latency.p99, 3)} ms)`,
          `≤ ${OPEN_LOOP_P99_TARGET} ms`,
          openPdp.latency.p99 <= OPEN_LOOP_P99_TARGET,
        ),
        lib.target(
          'throughput ratio, log on, worst round',
          `${lib.fmt(Math.min(...summary.pdp.ratios), 2)} × floor`,
          `≥ ${RATIO_TARGET}`,
          Math.min(...summary.pdp.ratios) >= RATIO_TARGET,
        ),
        lib.target(
          'errors under load',
          String(summary.pdp.problems + summary.pdpQuiet.problems + summary.pdpRecords.problems + light.errors + light.timeouts + light.non2xx + openFailed),
          '0',
          summary.pdp.problems + summary.pdpQuiet.problems + summary.pdpRecords.problems + light.errors + light.timeouts + light.non2xx + openFailed === 0,
        ),
      ],
      notes,
      figures: {
        ...summary,
        decisionRecords: recordCounts,
        light: { rps: light.requestsPerSecond, p50: light.latency.p50, p99: light.latency.p99 },
        openLoop: { rate: openRate, ...Object.fromEntries(Object.entries(openRuns).map(([key, runs]) => [key, runs.map((r) => r.latency)])) },
      },
    };
  } finally {
    await floorProc.stop();
    await core.stop();
  }
}

/** `decision_records_total` of a pdp's /metrics text, by outcome (0 where absent). */
function decisionRecordCounts(text) {
  const counts = { published: 0, dropped: 0, failed: 0 };
  for (const match of String(text).matchAll(/^decision_records_total\{[^}]*outcome="(\w+)"[^}]*\} (\S+)$/gm)) {
    if (match[1] in counts) counts[match[1]] = Number(match[2]);
  }
  return counts;
}

await lib.runStandalone(import.meta.url, run);
