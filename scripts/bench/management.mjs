// Benchmark 5 of issue 6 — management: how fast pap takes policies in, and how fast it lists them,
// with 10,000 policies stored (--quick: 1,000). Measured on pap's HTTP API with a real token:
//   adds/s and deploys/s with bounded concurrency (8) — deploys are serialised by the revision row;
//   one add and one deploy alone (latency without queueing);
//   GET /ws/policy-ids and GET /ws/policy-ids/deployed: p50/p99 over 50 sequential calls.
// Floor: GET /health/live on the same pap (express, no token, no database), 50 sequential calls.
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as lib from './lib.mjs';

export const name = 'management';
export const title = 'Management — policies added per second, GET /ws/policy-ids latency';

export async function run(options = {}) {
  const quick = Boolean(options.quick);
  const stored = quick ? 1000 : 10000;
  const batch = quick ? 200 : 1000;
  const alone = quick ? 20 : 50;
  const calls = quick ? 20 : 50;
  const concurrency = 8;

  const { fixture, owned } = await lib.policyStack(options, 'management');
  try {
    await fixture.growTo(stored);
    const { core } = fixture;
    const auth = { Authorization: `Bearer ${core.token}` };
    const run = Date.now().toString(36);
    const names = Array.from({ length: batch }, (_, k) => `m${run}x${k}`);

    lib.log(`${batch} adds, then ${batch} deploys, concurrency ${concurrency}, with ${lib.fmt(stored)} stored`);
    const timed = async (items, task) => {
      const started = performance.now();
      const ms = await lib.pool(items, concurrency, task);
      return { ms, perSecond: items.length / ((performance.now() - started) / 1000) };
    };
    const adds = await timed(names, async (n) => (await lib.addPolicy(core, lib.maskPolicy(n, n))).ms);
    const deploys = await timed(names, async (n) => (await lib.changePolicy(core, lib.policyId(n), 'deploy')).ms);

    lib.log(`${alone} add + deploy one at a time`);
    const aloneAdd = [];
    const aloneDeploy = [];
    for (let k = 0; k < alone; k++) {
      const n = `s${run}x${k}`;
      aloneAdd.push((await lib.addPolicy(core, lib.maskPolicy(n, n))).ms);
      aloneDeploy.push((await lib.changePolicy(core, lib.policyId(n), 'deploy')).ms);
    }

    lib.log(`${calls} × GET /ws/policy-ids, /ws/policy-ids/deployed, /health/live`);
    const get = async (path, headers) => {
      const ms = [];
      let size = 0;
      let count = 0;
      for (let k = 0; k < calls; k++) {
        const answer = await lib.request('GET', `${core.pap.url}${path}`, { headers });
        if (answer.status !== 200) throw new Error(`GET ${path} answered ${answer.status}: ${answer.text.slice(0, 300)}`);
        ms.push(answer.ms);
        size = answer.text.length;
        if (k === 0 && path.startsWith('/ws/')) count = answer.json().length;
      }
      return { ms, size, count };
    };
    const ids = await get('/ws/policy-ids', auth);
    const deployedIds = await get('/ws/policy-ids/deployed', auth);
    const floor = await get('/health/live', {});
    const expected = stored + batch + alone;
    if (ids.count !== expected) throw new Error(`GET /ws/policy-ids listed ${ids.count} ids, expected ${expected}`);

    const profileTables = [];
    const profileNotes = [];
    if (options.profile) {
      const profile = await profilePapAdds(core, { count: batch, concurrency, run });
      profileTables.push(...profile.tables);
      profileNotes.push(profile.note);
    }

    const p = (values, q) => lib.fmt(lib.percentile(values, q));
    const loadRates = fixture.loads.map((l) => `${lib.fmt(l.from)}→${lib.fmt(l.to)}: ${lib.fmt(l.perSecond)}/s`);
    return {
      name,
      title,
      tables: [
        {
          caption: `writes with ${lib.fmt(stored)} policies stored; latency in ms`,
          header: ['operation', 'per second', 'p50', 'p99'],
          rows: [
            [`add (POST /ws/policy), ${concurrency} at a time`, lib.fmt(adds.perSecond), p(adds.ms, 50), p(adds.ms, 99)],
            [`deploy (POST …/deploy), ${concurrency} at a time`, lib.fmt(deploys.perSecond), p(deploys.ms, 50), p(deploys.ms, 99)],
            ['add, one at a time', lib.fmt(1000 / lib.median(aloneAdd)), p(aloneAdd, 50), p(aloneAdd, 99)],
            ['deploy, one at a time', lib.fmt(1000 / lib.median(aloneDeploy)), p(aloneDeploy, 50), p(aloneDeploy, 99)],
          ],
        },
        {
          caption: `reads, ${calls} sequential calls each; ms`,
          header: ['request', 'ids', 'bytes', 'p50', 'p99'],
          rows: [
            ['GET /ws/policy-ids', lib.fmt(ids.count), lib.fmt(ids.size), p(ids.ms, 50), p(ids.ms, 99)],
            ['GET /ws/policy-ids/deployed', lib.fmt(deployedIds.count), lib.fmt(deployedIds.size), p(deployedIds.ms, 50), p(deployedIds.ms, 99)],
            ['floor: GET /health/live (express, no token, no db)', '–', lib.fmt(floor.size), p(floor.ms, 50), p(floor.ms, 99)],
          ],
        },
        ...profileTables,
      ],
      targets: [
        lib.target('policies added per second (8 at a time)', lib.fmt(adds.perSecond), 'figure only', undefined),
        lib.target(`GET /ws/policy-ids p99, ${lib.fmt(ids.count)} ids`, `${p(ids.ms, 99)} ms`, 'figure only', undefined),
      ],
      notes: [
        `Bulk loading through the API (add then deploy each, concurrency 8): ${loadRates.join('; ') || 'none in this run'}.`,
        'Adds are bound by pap\'s CPU (one thread): every add is fully validated, XSD included; compare "8 at a time" with "one at a time". Deploys serialise on the revision row but commit in groups.',
        ...profileNotes,
      ],
      figures: {
        addsPerSecond: adds.perSecond,
        deploysPerSecond: deploys.perSecond,
        idsP50: lib.median(ids.ms),
        idsP99: lib.percentile(ids.ms, 99),
      },
    };
  } finally {
    if (owned) await fixture.core.stop();
  }
}

/** A second pap on the same database, started with --cpu-prof, taking `count` adds; top self time. */
async function profilePapAdds(core, { count, concurrency, run }) {
  const dir = mkdtempSync(path.join(tmpdir(), 'custos-pap-prof-'));
  lib.log(`profiling a pap taking ${count} adds into ${dir}`);
  const pap = await lib.startService('pap-service', core.env, { stdout: 'ignore', nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${dir}`], label: 'pap-prof' });
  const stop = lib.onCleanup(() => pap.stop());
  await lib.warmVerifier(`${pap.url}/ws/policy-ids`, core.token, 'GET');
  const names = Array.from({ length: count }, (_, k) => `q${run}x${k}`);
  const fromUs = lib.hrtimeUs();
  const started = performance.now();
  await lib.pool(names, concurrency, (n) => lib.addPolicy({ ...core, pap }, lib.maskPolicy(n, n)));
  const perSecond = count / ((performance.now() - started) / 1000);
  const toUs = lib.hrtimeUs();
  await stop();
  const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
  if (!file) return { tables: [], note: `no CPU profile was written in ${dir}` };
  const summary = lib.summariseCpuProfile(path.join(dir, file), { fromUs, toUs });
  return {
    tables: lib.profileTables(summary, `CPU profile of pap taking ${count} adds, ${concurrency} at a time (${lib.fmt(perSecond)}/s while profiled)`, {
      functions: 12,
      modules: 10,
    }),
    note: `pap CPU profile: ${path.join(dir, file)}`,
  };
}

await lib.runStandalone(import.meta.url, run);
