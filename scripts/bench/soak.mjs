// Benchmark 6 of issue 6 — load soak (only with `--soak [minutes]`; default 10, --quick 0.5).
// 3 pdp replicas with 1,000 deployed policies (--quick: 200). First the peak: three autocannon
// processes, one per replica, 17 connections each, flat out. Then, for the soak's duration, each
// replica gets 70 % of its share of that peak (autocannon overallRate, latency corrected for
// coordinated omission) while, every second, a toggled inhibit-all policy is deployed or revoked.
// A checker asks every replica about the toggled action every 20 ms and keeps (Policy-Revision,
// eventAllowed); afterwards each answer is checked against the sequence of pap's deploy/revoke
// answers: at revision r the policy is deployed iff the last change at or before r was a deploy.
// Reported: errors of every kind (must be 0), inconsistent or backwards decisions (must be 0),
// RSS per replica at the start, the end and the highest sample, and once a minute in between.
import * as lib from './lib.mjs';

export const name = 'soak';
export const title = 'Soak — 70 % of peak across 3 replicas, a deploy or revoke every second';

const TOGGLE = 'soak-toggle';

export async function run(options = {}) {
  const quick = Boolean(options.quick);
  const minutes = options.soakMinutes ?? (quick ? 0.5 : 10);
  const seconds = Math.max(10, Math.round(minutes * 60));
  const basePolicies = quick ? 200 : 1000;
  const peakSeconds = quick ? 3 : 10;
  const rssEveryMs = quick ? 5_000 : 15_000;
  const replicas = 3;

  const core = await lib.startCore({ label: 'soak' });
  const background = [];
  try {
    lib.log(`${basePolicies} deployed policies; toggled policy on action ${TOGGLE}`);
    const loaded = await lib.loadPolicies(core, { count: basePolicies, concurrency: 8 });
    await lib.addPolicy(core, lib.inhibitPolicy(TOGGLE, TOGGLE));
    const pdps = [];
    for (let i = 0; i < replicas; i++) pdps.push(await core.startPdp({ label: `pdp-soak-${i}` }));

    const headers = { Authorization: `Bearer ${core.token}`, 'Content-Type': 'application/json' };
    const body = lib.eventJson('a0');
    const connections = Math.ceil(50 / replicas);
    const loadAll = (duration, rate) =>
      Promise.all(
        pdps.map((pdp, i) =>
          lib.runLoad(
            { url: `${pdp.url}/event`, method: 'POST', headers, body, connections, duration, ...(rate ? { overallRate: rate, ignoreCoordinatedOmission: true } : {}), title: `replica ${i}` },
            { label: `load-soak-${i}` },
          ),
        ),
      );

    lib.log(`peak: ${replicas} × ${connections} connections for ${peakSeconds} s`);
    await loadAll(1);
    const peakRuns = await loadAll(peakSeconds);
    const peak = peakRuns.reduce((sum, r) => sum + r.requestsPerSecond, 0);
    const perReplicaRate = Math.max(1, Math.floor((0.7 * peak) / replicas));
    lib.log(`peak ${lib.fmt(peak)} req/s → soak at ${lib.fmt(perReplicaRate * replicas)} req/s for ${seconds} s`);

    const rssStart = pdps.map((pdp) => lib.rssMb(pdp.pid));
    const rssMax = [...rssStart];
    const rssByMinute = [['0', ...rssStart]];
    const started = performance.now();
    const endsAt = started + seconds * 1000;
    const loads = loadAll(seconds, perReplicaRate);

    // Memory samples.
    background.push(
      (async () => {
        for (let tick = 1; performance.now() < endsAt; tick++) {
          await lib.sleep(Math.max(0, started + tick * rssEveryMs - performance.now()));
          const sample = pdps.map((pdp) => lib.rssMb(pdp.pid));
          sample.forEach((mb, i) => (rssMax[i] = Math.max(rssMax[i], mb)));
          // One row a minute (every sample with --quick), so slow growth can be told from a plateau.
          if (quick || (tick * rssEveryMs) % 60_000 === 0) rssByMinute.push([lib.fmt((tick * rssEveryMs) / 60_000, 2), ...sample]);
        }
      })(),
    );

    // A deploy or a revoke every second; pap's answers, in order.
    const changes = [];
    const changeErrors = [];
    background.push(
      (async () => {
        const ticks = seconds - 1;
        for (let k = 0; k < ticks; k++) {
          await lib.sleep(Math.max(0, started + (k + 1) * 1000 - performance.now()));
          const kind = k % 2 === 0 ? 'deploy' : 'revoke';
          try {
            const { revision } = await lib.changePolicy(core, lib.policyId(TOGGLE), kind);
            changes.push({ kind, revision });
          } catch (error) {
            changeErrors.push(`${kind} #${k}: ${error.message}`);
          }
        }
      })(),
    );

    // The checker: every replica, the toggled action, every 20 ms.
    const observations = pdps.map(() => []);
    const checkErrors = [];
    pdps.forEach((pdp, i) =>
      background.push(
        (async () => {
          while (performance.now() < endsAt) {
            try {
              const decision = await lib.decide(core, pdp, TOGGLE);
              if (decision.status !== 200) checkErrors.push(`replica ${i}: status ${decision.status}`);
              else observations[i].push({ revision: decision.revision, allowed: decision.allowed });
            } catch (error) {
              checkErrors.push(`replica ${i}: ${error.message}`);
            }
            await lib.sleep(20);
          }
        })(),
      ),
    );

    const loadRuns = await loads;
    await Promise.all(background);
    const rssEnd = pdps.map((pdp) => lib.rssMb(pdp.pid));
    rssEnd.forEach((value, i) => (rssMax[i] = Math.max(rssMax[i], value)));

    // Consistency against pap's answers.
    changes.sort((a, b) => a.revision - b.revision);
    const deployedAt = (revision) => {
      let deployed = false;
      for (const change of changes) {
        if (change.revision > revision) break;
        deployed = change.kind === 'deploy';
      }
      return deployed;
    };
    const lastKnown = changes.length ? changes[changes.length - 1].revision : loaded.lastRevision;
    let inconsistent = 0;
    let backwards = 0;
    let unknown = 0;
    const examples = [];
    observations.forEach((list, i) => {
      let previous = -1;
      for (const o of list) {
        if (o.revision < previous) {
          backwards++;
          if (examples.length < 5) examples.push(`replica ${i} went back from revision ${previous} to ${o.revision}`);
        }
        previous = Math.max(previous, o.revision);
        if (o.revision > lastKnown) {
          unknown++;
          continue;
        }
        if (o.allowed !== !deployedAt(o.revision)) {
          inconsistent++;
          if (examples.length < 5) examples.push(`replica ${i} at revision ${o.revision}: allowed ${o.allowed}`);
        }
      }
    });
    const checks = observations.reduce((sum, list) => sum + list.length, 0);
    // The check means something only if both states were seen.
    const inhibited = observations.reduce((sum, list) => sum + list.filter((o) => o.allowed === false).length, 0);
    const loadProblems = loadRuns.reduce((sum, r) => sum + r.errors + r.timeouts + r.non2xx, 0);
    const errors = loadProblems + changeErrors.length + checkErrors.length;
    const achieved = loadRuns.reduce((sum, r) => sum + r.requestsPerSecond, 0);
    const growth = rssEnd.map((end, i) => end - rssStart[i]);
    const worstGrowthPct = Math.max(...growth.map((g, i) => (g / rssStart[i]) * 100));

    return {
      name,
      title,
      tables: [
        {
          caption: `${lib.fmt(seconds / 60, 1)} min at ${lib.fmt(perReplicaRate * replicas)} req/s wanted (70 % of the ${lib.fmt(peak)} req/s peak), ${changes.length} deploys/revokes, ${lib.fmt(checks)} checked decisions (${lib.fmt(inhibited)} inhibited while deployed)`,
          header: ['replica', 'req/s', 'p50 ms', 'p99 ms', 'max ms', 'errors', 'RSS at ready', 'RSS start', 'RSS end', 'RSS max'],
          rows: pdps.map((pdp, i) => {
            const r = loadRuns[i];
            return [
              String(i),
              lib.fmt(r.requestsPerSecond),
              lib.fmt(r.latency.p50),
              lib.fmt(r.latency.p99),
              lib.fmt(r.latency.max),
              String(r.errors + r.timeouts + r.non2xx),
              lib.fmt(pdp.rssAtReadyMb, 0),
              lib.fmt(rssStart[i], 0),
              lib.fmt(rssEnd[i], 0),
              lib.fmt(rssMax[i], 0),
            ];
          }),
        },
        {
          caption: 'RSS of each replica during the soak, MB',
          header: ['minute', ...pdps.map((_, i) => `replica ${i}`)],
          rows: rssByMinute.map(([minute, ...values]) => [minute, ...values.map((mb) => lib.fmt(mb, 0))]),
        },
      ],
      targets: [
        lib.target('errors (load, deploy/revoke, checker)', String(errors), '0', errors === 0),
        lib.target(
          'decisions inconsistent with an applied revision',
          `${inconsistent} (+${backwards} backwards) of ${lib.fmt(checks)}`,
          '0',
          inconsistent + backwards === 0 && inhibited > 0 && inhibited < checks,
        ),
        lib.target('throughput held', `${lib.fmt(achieved)} of ${lib.fmt(perReplicaRate * replicas)} req/s`, '≥ 95 %', achieved >= 0.95 * perReplicaRate * replicas),
        lib.target('RSS growth start → end, worst replica', `${lib.fmt(worstGrowthPct, 1)} %`, '≤ 10 % (no growth)', quick ? undefined : worstGrowthPct <= 10),
      ],
      notes: [
        'autocannon\'s rate limit sends each connection\'s quota at the start of every second, so the soak\'s latencies are those of 1 s bursts (not corrected for coordinated omission).',
        'autocannon cannot show headers, so the consistency check uses the checker\'s own decisions (every replica, every 20 ms, the toggled action); the load itself is checked for status only.',
        ...(unknown ? [`${unknown} checked decisions carried a revision newer than any answer pap gave (not judged).`] : []),
        ...examples,
        ...changeErrors.slice(0, 3),
        ...checkErrors.slice(0, 3),
        ...(quick ? ['--quick: a 30 s soak says nothing about memory growth; judged in a full run only.'] : []),
      ],
      figures: { peak, achieved, errors, inconsistent, backwards, rssStart, rssEnd, rssMax, rssByMinute },
    };
  } finally {
    await Promise.allSettled(background);
    await core.stop();
  }
}

await lib.runStandalone(import.meta.url, run);
