// Part of the scale benchmark (issue 26, item 2): cold start with a set made the way users make it — each policy
// added and deployed on its own through pap's API, one after another (one revision each) — beside the same number
// written straight into pap's database, while replicas already run and decide. What the issue saw: the new replica
// far slower to be ready than the benchmark's own set, and the running ones logging timeouts meanwhile.
//
// On one fresh stack: `size` policies written straight in (one `resync` revision) → cold starts; removed; then the same
// policies through the API, sequentially → cold starts. During every start two running replicas decide at a fixed
// pace (one request per replica every 10 ms, timed from its due moment) and their logs are searched for timeouts;
// the same pace is measured for as long with no start, as their floor. The running replicas resync every second
// (PDP_RESYNC_INTERVAL_MS=1000, 30 times the default) so that what a periodic check costs shows within a start.
import path from 'node:path';
import * as lib from './lib.mjs';

const SNAPSHOT_LINE = /"msg":"policy snapshot active"/;
const TIMEOUT_LINE = /timeout|timed out/i;
const RUNNING = 2;
const PACE_MS = 10;
const RESYNC_MS = '1000';

/**
 * Runs both ways of making the set (`api: false` only the direct one, to compare builds quickly); resolves
 * {figures, setupSeconds, revision, quiet}.
 */
export async function madeSets(size, starts, { api = true } = {}) {
  const core = await lib.startCore({ label: 'scale_made' });
  try {
    const figures = {};
    const running = [];
    for (let i = 0; i < RUNNING; i++) {
      const pdp = await core.startPdp({ label: `pdp-running-${i}`, stdout: 'pipe' }, { PDP_RESYNC_INTERVAL_MS: RESYNC_MS });
      running.push(watchTimeouts(pdp));
    }
    const quiet = await paced(core, running, () => lib.sleep(2_000));
    figures.floor = await startsWhileRunning(core, running, 0, starts);

    const ids = await insertDirectly(core, size);
    await caughtUp(running, size);
    figures.direct = await startsWhileRunning(core, running, size, starts);
    await removeDirect(core, ids);
    if (!api) return { figures, setupSeconds: 0, revision: 0, quiet };

    lib.log(`adding and deploying ${lib.fmt(size)} policies one by one through pap's API`);
    const loaded = await lib.loadPolicies(core, { count: size, concurrency: 1 });
    lib.log(`  ${lib.fmt(size)} in ${lib.fmt(loaded.seconds)} s, revision ${loaded.lastRevision}`);
    await caughtUp(running, size);
    figures.api = await startsWhileRunning(core, running, size, starts);
    return { figures, setupSeconds: loaded.seconds, revision: loaded.lastRevision, quiet };
  } finally {
    await core.stop();
  }
}

/** Lets the running replicas take the last change in (a deploy, or the `resync` of a direct write) before anything is timed. */
async function caughtUp(running, size) {
  for (const pdp of running) {
    await lib.waitUntil(async () => (await lib.request('GET', `${pdp.url}/status`)).json().policies === size, {
      timeoutMs: 60_000,
      what: 'the running replicas to hold the whole set',
    });
  }
}

/** `starts` cold starts of a new pdp with `size` policies, the running replicas decided on and watched meanwhile. */
async function startsWhileRunning(core, running, size, starts) {
  const samples = [];
  for (let rep = 0; rep < starts; rep++) {
    const before = running.reduce((n, pdp) => n + pdp.timeoutLines.length, 0);
    let pdp;
    // CPU time is what a loaded machine cannot stretch: the new pdp's to ready, pap's and the running replicas' meanwhile.
    const cpu = () => [core.pap, ...running].reduce((ms, p) => ms + lib.cpuMs(p.pid).total, 0);
    const othersBefore = cpu();
    let pdpCpuMs = 0;
    let othersCpuMs = 0;
    const latency = await paced(core, running, async () => {
      pdp = await core.startPdp({ label: `pdp-made-${size}`, stdout: 'pipe', readyTimeoutMs: 600_000, pollMs: 5 });
      pdpCpuMs = lib.cpuMs(pdp.pid).total;
      othersCpuMs = cpu() - othersBefore;
    });
    try {
      const status = (await lib.request('GET', `${pdp.url}/status`)).json();
      if (status.policies !== size) throw new Error(`the pdp holds ${status.policies} policies, expected ${size}`);
      const line = await lib.waitUntil(() => pdp.tail().split('\n').find((l) => SNAPSHOT_LINE.test(l)), { timeoutMs: 5_000, what: 'the snapshot line' });
      const timeouts = running.flatMap((r) => r.timeoutLines).slice(before);
      for (const timeout of timeouts.slice(0, 3)) lib.log(`  running replica: ${timeout.slice(0, 300)}`);
      const sample = { readyMs: pdp.readyMs, compileMs: JSON.parse(line).ms, rssReady: pdp.rssAtReadyMb, pdpCpuMs, othersCpuMs, ...latency, timeouts: timeouts.length };
      samples.push(sample);
      lib.log(
        `${lib.fmt(size)} (${size === 0 ? 'floor' : 'made'}): ready ${lib.fmt(sample.readyMs, 0)} ms (CPU: pdp ${lib.fmt(pdpCpuMs, 0)} ms, pap + running ${lib.fmt(othersCpuMs, 0)} ms), RSS ${lib.fmt(sample.rssReady, 0)} MB; running replicas p50 ${lib.fmt(latency.p50)} / p99 ${lib.fmt(latency.p99)} / max ${lib.fmt(latency.max)} ms, ${timeouts.length} timeout lines`,
      );
    } finally {
      await core.stopPdp(pdp);
    }
  }
  const m = (key) => lib.median(samples.map((s) => s[key]));
  return { readyMs: m('readyMs'), compileMs: m('compileMs'), rssReady: m('rssReady'), pdpCpuMs: m('pdpCpuMs'), othersCpuMs: m('othersCpuMs'), p50: m('p50'), p99: m('p99'), max: Math.max(...samples.map((s) => s.max)), timeouts: samples.reduce((n, s) => n + s.timeouts, 0), errors: samples.reduce((n, s) => n + s.errors, 0), starts: samples.length };
}

/** Keeps every line of the replica's output that speaks of a timeout (its tail keeps only the last 16 KB). */
function watchTimeouts(pdp) {
  pdp.timeoutLines = [];
  let rest = '';
  pdp.child.stdout.on('data', (chunk) => {
    const lines = (rest + chunk.toString()).split('\n');
    rest = lines.pop() ?? '';
    for (const line of lines) if (TIMEOUT_LINE.test(line)) pdp.timeoutLines.push(line);
  });
  return pdp;
}

/**
 * Decides on every running replica once per PACE_MS while `during()` runs, each request timed from the moment it was
 * due (so a stalled replica shows as the time it stalled); resolves their latency percentiles in ms.
 */
async function paced(core, running, during) {
  const times = [];
  let errors = 0;
  let stop = false;
  const loops = running.map(async (pdp) => {
    let due = performance.now();
    while (!stop) {
      const wait = due - performance.now();
      if (wait > 0) await lib.sleep(wait);
      const decision = await lib.decide(core, pdp, 'a0').catch(() => ({ status: 0 }));
      if (decision.status !== 200) errors++;
      times.push(performance.now() - due);
      due += PACE_MS;
    }
  });
  try {
    await during();
  } finally {
    stop = true;
    await Promise.all(loops);
  }
  return { p50: lib.percentile(times, 50), p99: lib.percentile(times, 99), max: Math.max(...times), errors, count: times.length };
}

/** Writes p0…p<size-1> straight into pap's rows with the tree pap computes, recorded as one `resync` revision. */
async function insertDirectly(core, size) {
  const engine = lib.require(path.join(lib.ROOT, 'packages', 'policy-engine', 'dist', 'index.js'));
  const client = await connect(core);
  const ids = [];
  try {
    for (let start = 0; start < size; start += 1000) {
      const rows = { ids: [], names: [], xmls: [], trees: [] };
      for (let i = start; i < Math.min(start + 1000, size); i++) {
        const xml = lib.maskPolicy(`p${i}`, `a${i}`);
        const outcome = engine.loadPolicyTree(xml);
        if (!outcome.ok) throw new Error(`the engine refuses p${i}`);
        rows.ids.push(lib.policyId(`p${i}`));
        rows.names.push(`bench p${i}`);
        rows.xmls.push(xml);
        rows.trees.push(JSON.stringify(outcome.tree));
      }
      await client.query(
        `INSERT INTO pap.policies (id, solution, name, xml, tree, deployed)
         SELECT id, $5, name, xml, tree, true FROM unnest($1::text[], $2::text[], $3::text[], $4::jsonb[]) AS t(id, name, xml, tree)`,
        [rows.ids, rows.names, rows.xmls, rows.trees, lib.SOLUTION],
      );
      ids.push(...rows.ids);
    }
    await lib.recordDirectWrite(client);
  } finally {
    await client.end();
  }
  return ids;
}

async function removeDirect(core, ids) {
  const client = await connect(core);
  try {
    await client.query('DELETE FROM pap.policies WHERE id = ANY($1::text[])', [ids]);
    await lib.recordDirectWrite(client);
  } finally {
    await client.end();
  }
}

async function connect(core) {
  const pg = lib.require(lib.require.resolve('pg', { paths: [path.join(lib.ROOT, 'apps', 'pap-service')] }));
  const client = new pg.Client({ connectionString: core.env.DATABASE_URL });
  await client.connect();
  return client;
}
