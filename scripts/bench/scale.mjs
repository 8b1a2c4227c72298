// Benchmark 4 of issue 6, target 2 of issue 11 — scale: pdp cold start and memory with N policies already deployed
// in pap. Cold start = process spawn → first 200 of /health/ready (boot, migrations, NATS, snapshot fetch, compile
// of every policy). Memory = VmRSS of the pdp process (/proc/<pid>/status) at ready, its peak (VmHWM) during start,
// and after 200 decisions and a 1 s pause. Floor: the same with 0 policies, in the same run.
// Targets for 10,000 policies: ready at most 0.5 s after the floor, and at most 5 KB of RSS per policy over the
// floor (at ready and after the decisions). 100,000 policies are reported as figures (full run only); they are
// written straight into pap's database (XML and the tree pap would compute, through the engine pap uses), since
// adding 90,000 through the API would take minutes, and removed again afterwards.
// Also shown: whether the pdp mapped libxml2 (libxmljs2's native module) at all — with every policy arriving as a
// compiled tree it should not. --quick uses 200 and 1,000.
// Then (issue 26, item 2; scale-made.mjs) the largest size made as users make it — one deploy at a time through the
// API — and written directly, each started while two replicas run and are decided on: ready, RSS, the running
// replicas' latency during the start and the timeouts in their logs.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import * as lib from './lib.mjs';
import { madeSets } from './scale-made.mjs';

export const name = 'scale';
export const title = 'Scale — pdp cold start and resident memory by number of deployed policies';

const SNAPSHOT_LINE = /"msg":"policy snapshot active"/;
const READY_BUDGET_MS = 500;
const KB_PER_POLICY_BUDGET = 5;
const TARGET_SIZE = 10_000;
const BULK_SIZE = 100_000;

export async function run(options = {}) {
  const quick = Boolean(options.quick);
  const sizes = quick ? [0, 200, 1000] : [0, 1000, TARGET_SIZE, BULK_SIZE];
  const largest = quick ? 1000 : TARGET_SIZE;

  const { fixture, owned } = await lib.policyStack(options, 'scale');
  const bulk = { inserted: 0, ids: [], seconds: 0 };
  try {
    const rows = [];
    const figures = {};
    for (const size of sizes) {
      if (size === BULK_SIZE) await bulkDeploy(fixture, size, bulk);
      else await fixture.growTo(size);
      const samples = [];
      let repetitions = quick || size === BULK_SIZE ? 1 : 3;
      for (let rep = 0; rep < repetitions; rep++) {
        const sample = await coldStart(fixture, size);
        samples.push(sample);
        lib.log(`${size} policies: ready in ${lib.fmt(sample.readyMs)} ms, RSS ${lib.fmt(sample.rssReady, 0)} MB (peak ${lib.fmt(sample.rssPeak, 0)}), libxml2 ${sample.libxml ? 'mapped' : 'not mapped'}`);
        // A start that takes longer than 20 s is not going to be near its target: once is enough.
        if (sample.readyMs > 20_000) repetitions = rep + 1;
      }
      const m = (key) => lib.median(samples.map((s) => s[key]));
      figures[size] = {
        readyMs: m('readyMs'),
        compileMs: m('compileMs'),
        rssReady: m('rssReady'),
        rssPeak: m('rssPeak'),
        rssSettled: m('rssSettled'),
        libxml: samples.some((s) => s.libxml),
        starts: samples.length,
      };
    }
    const floor = figures[0];
    const over = (f, size) => ({
      readyMs: f.readyMs - floor.readyMs,
      kbReady: ((f.rssReady - floor.rssReady) * 1024) / size,
      kbSettled: ((f.rssSettled - floor.rssSettled) * 1024) / size,
    });
    for (const size of sizes) {
      const f = figures[size];
      const extra = size === 0 ? undefined : over(f, size);
      rows.push([
        size === 0 ? '0 (floor)' : lib.fmt(size),
        String(f.starts),
        lib.fmt(f.readyMs, 0),
        extra === undefined ? '–' : lib.fmt(extra.readyMs, 0),
        lib.fmt(f.compileMs, 0),
        lib.fmt(size === 0 ? NaN : (f.compileMs / size) * 1000, 1),
        lib.fmt(f.rssReady, 0),
        lib.fmt(f.rssPeak, 0),
        lib.fmt(f.rssSettled, 0),
        extra === undefined ? '–' : `${lib.fmt(extra.kbReady, 1)} / ${lib.fmt(extra.kbSettled, 1)}`,
        f.libxml ? 'yes' : 'no',
      ]);
    }
    // Issue 26, item 2: the set made one deploy at a time through the API, and by direct insert, with replicas running.
    const made = await madeSets(largest, quick ? 1 : 3);
    const top = over(figures[largest], largest);
    const worstKb = Math.max(top.kbReady, top.kbSettled);
    const judged = !quick;
    const loads = fixture.loads.map((l) => `${lib.fmt(l.from)}→${lib.fmt(l.to)}: ${lib.fmt(l.perSecond)}/s`);
    return {
      name,
      title,
      tables: [
        {
          caption: `median of ${quick ? 1 : 3} cold starts per size (1 at 100,000, and when a start exceeds 20 s); ms and MB`,
          header: ['policies', 'starts', 'spawn → ready', 'over floor', 'snapshot compile', 'compile µs/policy', 'RSS at ready', 'peak RSS', 'RSS settled', 'KB/policy over floor (ready / settled)', 'libxml2 mapped'],
          rows,
        },
        madeTable(made, largest),
      ],
      targets: [
        lib.target(
          `ready, ${lib.fmt(largest)} policies, over the floor (${lib.fmt(floor.readyMs / 1000)} s)`,
          `+${lib.fmt(top.readyMs / 1000)} s (${lib.fmt(figures[largest].readyMs / 1000)} s)`,
          quick ? '≤ +0.5 s at 10,000' : '≤ +0.5 s',
          judged ? top.readyMs <= READY_BUDGET_MS : undefined,
        ),
        lib.target(
          `RSS per policy, ${lib.fmt(largest)} policies, over the floor (${lib.fmt(floor.rssReady, 0)} / ${lib.fmt(floor.rssSettled, 0)} MB)`,
          `${lib.fmt(top.kbReady, 1)} KB at ready, ${lib.fmt(top.kbSettled, 1)} KB settled`,
          quick ? '≤ 5 KB at 10,000' : '≤ 5 KB',
          judged ? worstKb <= KB_PER_POLICY_BUDGET : undefined,
        ),
        ...madeTargets(made, largest, quick),
      ],
      notes: [
        '"over floor" and "KB/policy over floor" compare with the 0-policy pdp of the same run; "settled" is after 200 decisions and 1 s.',
        '"snapshot compile" is the pdp\'s own figure (log line `policy snapshot active`, fetch excluded); spawn → ready includes Node start-up, migrations, NATS connect and the snapshot.',
        '"libxml2 mapped": whether libxmljs2\'s native module appears in /proc/<pid>/maps after the decisions; policies arrive as compiled trees, so the pdp never reads XML.',
        `Loading through pap (add + deploy, concurrency 8): ${loads.join('; ')}.`,
        ...(bulk.inserted > 0 ? [`100,000: ${lib.fmt(bulk.inserted)} policies beyond 10,000 written straight into pap's database with their trees, ${lib.fmt(bulk.seconds)} s; removed afterwards. Figures only.`] : []),
        `Made as users make it: ${lib.fmt(largest)} policies added and deployed one at a time through pap's API (concurrency 1, ${lib.fmt(made.revision)} revisions) took ${lib.fmt(made.setupSeconds)} s; "direct" wrote the same policies straight into pap's rows, recorded as one 'resync' revision. Both on a stack of their own with two replicas running, resyncing every second, each decided on every 10 ms (latency from the due moment) during every start; "timeout lines" counts their log lines that speak of a timeout.`,
        ...(quick ? ['--quick: smaller sizes; targets are judged at 10,000 in a full run only.'] : []),
      ],
      figures: { ...figures, made },
    };
  } finally {
    if (bulk.inserted > 0) await bulkRemove(fixture, bulk).catch((error) => console.error(`scale: removing the bulk policies: ${error.message}`));
    if (owned) await fixture.core.stop();
  }
}

/** The made-set table: floor, direct insert and API-made beside each other, with the running replicas' side. */
function madeTable(made, size) {
  const { floor } = made.figures;
  const row = (label, f, n) => [
    label,
    String(f.starts),
    lib.fmt(f.readyMs, 0),
    n === 0 ? '–' : lib.fmt(f.readyMs - floor.readyMs, 0),
    lib.fmt(f.compileMs, 0),
    `${lib.fmt(f.pdpCpuMs, 0)} / ${lib.fmt(f.othersCpuMs, 0)}`,
    lib.fmt(f.rssReady, 0),
    n === 0 ? '–' : lib.fmt(((f.rssReady - floor.rssReady) * 1024) / n, 1),
    `${lib.fmt(f.p50)} / ${lib.fmt(f.p99)} / ${lib.fmt(f.max, 0)}`,
    String(f.timeouts),
    String(f.errors),
  ];
  return {
    caption: `issue 26: a new pdp while two replicas run and decide; ${lib.fmt(size)} policies made through the API one at a time, or written directly; medians; ms and MB`,
    header: ['set', 'starts', 'spawn → ready', 'over floor', 'snapshot compile', 'CPU ms: new pdp / pap + running', 'RSS at ready', 'KB/policy over floor', 'running replicas p50 / p99 / max ms', 'timeout lines', 'failed decisions'],
    rows: [
      ['running replicas, no start', '–', '–', '–', '–', '–', '–', '–', `${lib.fmt(made.quiet.p50)} / ${lib.fmt(made.quiet.p99)} / ${lib.fmt(made.quiet.max, 0)}`, '–', String(made.quiet.errors)],
      row('0 (floor)', floor, 0),
      row(`${lib.fmt(size)} direct`, made.figures.direct, size),
      row(`${lib.fmt(size)} via API`, made.figures.api, size),
    ],
  };
}

/** A difference in ms as seconds with its sign (a start can beat the floor on a noisy machine). */
const signedSeconds = (ms) => `${ms < 0 ? '−' : '+'}${lib.fmt(Math.abs(ms) / 1000)} s`;

function madeTargets(made, size, quick) {
  const { floor, api, direct } = made.figures;
  const overMs = api.readyMs - floor.readyMs;
  const kb = ((api.rssReady - floor.rssReady) * 1024) / size;
  const timeouts = floor.timeouts + direct.timeouts + api.timeouts;
  const judged = !quick;
  return [
    lib.target(`ready, ${lib.fmt(size)} made via the API with replicas running, over the floor (${lib.fmt(floor.readyMs / 1000)} s)`, `${signedSeconds(overMs)} (direct: ${signedSeconds(direct.readyMs - floor.readyMs)})`, quick ? '≤ +0.5 s at 10,000' : '≤ +0.5 s', judged ? overMs <= READY_BUDGET_MS : undefined),
    lib.target(`RSS per policy at ready, ${lib.fmt(size)} made via the API`, `${lib.fmt(kb, 1)} KB`, quick ? '≤ 5 KB at 10,000' : '≤ 5 KB', judged ? kb <= KB_PER_POLICY_BUDGET : undefined),
    lib.target('timeout lines in the running replicas\' logs during the starts', String(timeouts), '0', timeouts === 0),
  ];
}

async function coldStart(fixture, size) {
  const { core } = fixture;
  const pdp = await core.startPdp({ label: `pdp-scale-${size}`, stdout: 'pipe', readyTimeoutMs: 600_000, pollMs: 5 });
  try {
    const rssReady = pdp.rssAtReadyMb;
    const rssPeak = lib.rssPeakMb(pdp.pid);
    const status = (await lib.request('GET', `${pdp.url}/status`)).json();
    if (status.policies !== size) throw new Error(`the pdp holds ${status.policies} policies, expected ${size}`);
    const line = await lib.waitUntil(() => pdp.tail().split('\n').find((l) => SNAPSHOT_LINE.test(l)), {
      timeoutMs: 5_000,
      what: 'the pdp\'s `policy snapshot active` line',
    });
    const compileMs = JSON.parse(line).ms;
    const action = size > 0 ? 'a0' : 'none';
    for (let i = 0; i < 200; i++) {
      const decision = await lib.decide(core, pdp, action);
      if (decision.status !== 200) throw new Error(`decision answered ${decision.status}`);
    }
    await lib.sleep(1000);
    return { readyMs: pdp.readyMs, compileMs, rssReady, rssPeak, rssSettled: lib.rssMb(pdp.pid), libxml: mapsLibxml(pdp.pid) };
  } finally {
    await core.stopPdp(pdp);
  }
}

/** Whether libxmljs2's native module is mapped into the process. */
function mapsLibxml(pid) {
  return readFileSync(`/proc/${pid}/maps`, 'utf8').includes('xmljs');
}

const BULK_BATCH = 1000;

/** Deploys policies p<count of the fixture>…p<size-1> by writing pap's rows directly, with the tree pap computes. */
async function bulkDeploy(fixture, size, bulk) {
  const from = fixture.count;
  lib.log(`writing policies ${from}…${size - 1} straight into pap's database`);
  const engine = lib.require(path.join(lib.ROOT, 'packages', 'policy-engine', 'dist', 'index.js'));
  const client = await connectPap(fixture);
  const started = performance.now();
  try {
    for (let start = from; start < size; start += BULK_BATCH) {
      const ids = [];
      const names = [];
      const xmls = [];
      const trees = [];
      for (let i = start; i < Math.min(start + BULK_BATCH, size); i++) {
        const xml = lib.maskPolicy(`p${i}`, `a${i}`);
        const outcome = engine.loadPolicyTree(xml);
        if (!outcome.ok) throw new Error(`the engine refuses p${i}: ${JSON.stringify(outcome.diagnostics)}`);
        ids.push(lib.policyId(`p${i}`));
        names.push(`bench p${i}`);
        xmls.push(xml);
        trees.push(JSON.stringify(outcome.tree));
      }
      await client.query(
        `INSERT INTO pap.policies (id, solution, name, xml, tree, deployed)
         SELECT id, $5, name, xml, tree, true FROM unnest($1::text[], $2::text[], $3::text[], $4::jsonb[]) AS t(id, name, xml, tree)`,
        [ids, names, xmls, trees, lib.SOLUTION],
      );
      bulk.inserted += ids.length;
      bulk.ids.push(...ids);
    }
    await lib.recordDirectWrite(client);
  } finally {
    await client.end();
  }
  bulk.seconds = (performance.now() - started) / 1000;
  lib.log(`  ${bulk.inserted} in ${lib.fmt(bulk.seconds)} s`);
}

async function bulkRemove(fixture, bulk) {
  const client = await connectPap(fixture);
  try {
    await client.query('DELETE FROM pap.policies WHERE id = ANY($1::text[])', [bulk.ids]);
    await lib.recordDirectWrite(client);
  } finally {
    await client.end();
  }
}

async function connectPap(fixture) {
  const pg = lib.require(lib.require.resolve('pg', { paths: [path.join(lib.ROOT, 'apps', 'pap-service')] }));
  const client = new pg.Client({ connectionString: fixture.core.env.DATABASE_URL });
  await client.connect();
  return client;
}

await lib.runStandalone(import.meta.url, run);
