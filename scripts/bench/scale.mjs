// Benchmark 4 of issue 6 — scale: pdp cold start and memory with N policies already deployed in pap.
// Cold start = process spawn → first 200 of /health/ready (boot, migrations, NATS, snapshot fetch,
// compile of every policy). Memory = VmRSS of the pdp process (/proc/<pid>/status) at ready, its peak
// (VmHWM) during start, and after 200 decisions and a 1 s pause. Floor: the same with 0 policies.
// Targets for 10,000 policies: cold start ≤ 2 s, RSS ≤ 150 MB. --quick uses 200 and 1,000.
import * as lib from './lib.mjs';

export const name = 'scale';
export const title = 'Scale — pdp cold start and resident memory by number of deployed policies';

const SNAPSHOT_LINE = /"msg":"policy snapshot active"/;

export async function run(options = {}) {
  const quick = Boolean(options.quick);
  const sizes = quick ? [0, 200, 1000] : [0, 1000, 10000];
  const largest = sizes[sizes.length - 1];

  const { fixture, owned } = await lib.policyStack(options, 'scale');
  try {
    const rows = [];
    const figures = {};
    for (const size of sizes) {
      await fixture.growTo(size);
      const samples = [];
      let repetitions = quick ? 1 : 3;
      for (let rep = 0; rep < repetitions; rep++) {
        const sample = await coldStart(fixture, size);
        samples.push(sample);
        lib.log(`${size} policies: ready in ${lib.fmt(sample.readyMs)} ms, RSS ${lib.fmt(sample.rssReady, 0)} MB (peak ${lib.fmt(sample.rssPeak, 0)})`);
        // A start that takes longer than 20 s is not going to be near its target: once is enough.
        if (sample.readyMs > 20_000) repetitions = rep + 1;
      }
      const m = (key) => lib.median(samples.map((s) => s[key]));
      figures[size] = { readyMs: m('readyMs'), compileMs: m('compileMs'), rssReady: m('rssReady'), rssPeak: m('rssPeak'), rssSettled: m('rssSettled') };
      const f = figures[size];
      rows.push([
        size === 0 ? '0 (floor)' : lib.fmt(size),
        String(samples.length),
        lib.fmt(f.readyMs, 0),
        lib.fmt(f.compileMs, 0),
        lib.fmt(size === 0 ? NaN : (f.compileMs / size) * 1000, 0),
        lib.fmt(f.rssReady, 0),
        lib.fmt(f.rssPeak, 0),
        lib.fmt(f.rssSettled, 0),
        lib.fmt(size === 0 ? NaN : ((f.rssSettled - figures[0].rssSettled) * 1024) / size, 1),
      ]);
    }
    const top = figures[largest];
    const loads = fixture.loads.map((l) => `${lib.fmt(l.from)}→${lib.fmt(l.to)}: ${lib.fmt(l.perSecond)}/s`);
    return {
      name,
      title,
      tables: [
        {
          caption: `median of ${quick ? 1 : 3} cold starts per size (1 when a start exceeds 20 s); ms and MB`,
          header: ['policies', 'starts', 'spawn → ready', 'snapshot compile', 'compile µs/policy', 'RSS at ready', 'peak RSS', 'RSS settled', 'KB/policy over floor'],
          rows,
        },
      ],
      targets: [
        lib.target(`cold start, ${lib.fmt(largest)} policies`, `${lib.fmt(top.readyMs / 1000)} s`, quick ? '≤ 2 s at 10,000' : '≤ 2 s', quick ? undefined : top.readyMs <= 2000),
        lib.target(`RSS, ${lib.fmt(largest)} policies`, `${lib.fmt(top.rssSettled, 0)} MB (peak ${lib.fmt(top.rssPeak, 0)})`, quick ? '≤ 150 MB at 10,000' : '≤ 150 MB', quick ? undefined : Math.max(top.rssSettled, top.rssReady) <= 150),
      ],
      notes: [
        '"snapshot compile" is the pdp\'s own figure (log line `policy snapshot active`, fetch excluded); spawn → ready includes Node start-up, migrations, NATS connect and the snapshot.',
        `Loading through pap (add + deploy, concurrency 8): ${loads.join('; ')}.`,
        ...(quick ? ['--quick: smaller sizes; targets are judged at 10,000 in a full run only.'] : []),
      ],
      figures,
    };
  } finally {
    if (owned) await fixture.core.stop();
  }
}

async function coldStart(fixture, size) {
  const { core } = fixture;
  const pdp = await core.startPdp({ label: `pdp-scale-${size}`, stdout: 'pipe', readyTimeoutMs: 300_000, pollMs: 5 });
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
    return { readyMs: pdp.readyMs, compileMs, rssReady, rssPeak, rssSettled: lib.rssMb(pdp.pid) };
  } finally {
    await core.stopPdp(pdp);
  }
}

await lib.runStandalone(import.meta.url, run);
