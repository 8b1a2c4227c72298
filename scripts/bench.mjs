// The benchmark suite of issue 6 (`npm run bench` builds first, then runs this).
//
//   node scripts/bench.mjs [--quick] [--only engine,http,propagation,replay,scale,management,history,batch,fairness,nats-cluster,soak,embedded,chaos]
//                          [--soak [minutes]] [--chaos [minutes]] [--profile] [--json <file>]
//
// Runs, in order: engine (packages/policy-engine/bench/decide.mjs, when it exists), http, propagation, replay,
// scale, management, history, batch, fairness, nats-cluster (issue 23: a stream leader killed); soak only with --soak (default 10 minutes, 0.5 with --quick) or --only soak;
// embedded (one process on PGlite) only with --only embedded.
// chaos (issues 14 and 23) only with --chaos (default 10 minutes per form, 1 with --quick), alone unless --only names others.
// Each benchmark prints its figures beside the floor or baseline measured in the same run, then a
// summary of every target. Every process, database and NATS stream a benchmark starts is removed
// afterwards, also on failure and on Ctrl-C. PostgreSQL and NATS are the machine's, on their standard
// local ports (DATABASE_URL / NATS_URL override).
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, cpus, tmpdir } from 'node:os';
import path from 'node:path';
import * as lib from './bench/lib.mjs';

const ALL = ['engine', 'http', 'propagation', 'replay', 'scale', 'management', 'history', 'batch', 'fairness', 'nats-cluster', 'soak', 'embedded', 'chaos'];
const DEFAULT = ['engine', 'http', 'propagation', 'replay', 'scale', 'management', 'history', 'batch', 'fairness', 'nats-cluster'];
const ENGINE_BENCH = path.join(lib.ROOT, 'packages', 'policy-engine', 'bench', 'decide.mjs');

const USAGE = `usage: node scripts/bench.mjs [--quick] [--only <${ALL.join('|')}>[,...]] [--soak [minutes]] [--chaos [minutes]] [--profile] [--json <file>]
  --quick          smaller sizes and shorter runs (noisy; for checking that everything works)
  --only a,b       run only these benchmarks
  --soak [min]     also run the load soak (default 10 minutes; 0.5 with --quick)
  --chaos [min]    run the chaos run (default 10 minutes; 1 with --quick): kills and restarts under load
  --profile        CPU profiles: the pdp under HTTP load, pap taking adds (top self-time functions)
  --json <file>    also write every figure as JSON`;

function runEngine(options) {
  if (!existsSync(ENGINE_BENCH)) {
    return {
      name: 'engine',
      title: 'Engine — in-process decisions',
      notes: [`skipped: ${path.relative(lib.ROOT, ENGINE_BENCH)} does not exist yet (the engine benchmark is written separately).`],
      targets: [],
    };
  }
  console.log(`\n## Engine — node ${path.relative(lib.ROOT, ENGINE_BENCH)}${options.quick ? ' --quick' : ''}\n`);
  return new Promise((resolve, reject) => {
    const figuresFile = path.join(tmpdir(), `custos-engine-bench-${process.pid}.json`);
    const child = spawn(process.execPath, [ENGINE_BENCH, ...(options.quick ? ['--quick'] : []), '--json', figuresFile], {
      cwd: lib.ROOT,
      stdio: 'inherit',
    });
    const stop = lib.onCleanup(async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    });
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      void stop();
      if (code === 0) {
        const figures = JSON.parse(readFileSync(figuresFile, 'utf8'));
        rmSync(figuresFile, { force: true });
        resolve({ name: 'engine', title: 'Engine — in-process decisions (figures above)', targets: engineTargets(figures, options), notes: [], figures });
      }
      else reject(new Error(`${path.relative(lib.ROOT, ENGINE_BENCH)} exited with ${code ?? signal}`));
    });
  });
}

/**
 * The engine's targets (issue 3, kept by issue 11): p50 ≤ 3 µs and p99 ≤ 20 µs at every size, flat to 10,000
 * policies (p50 at 10,000 within 1.5 × of p50 at 10), compiling 1,000 policies ≤ 2 s.
 */
function engineTargets({ rows, compileMs }, options) {
  const sized = rows.filter((row) => /^[\d,]+ policies/.test(row.name));
  const judged = (ok) => (options.quick ? undefined : ok);
  const list = (key) => sized.map((row) => lib.fmt(row[key], 2)).join(', ');
  const sizes = sized.map((row) => row.name.split(' ')[0]).join(' / ');
  const first = sized[0];
  const last = sized[sized.length - 1];
  return [
    { name: `p50 per decision, ${sizes} policies`, value: `${list('p50')} µs`, target: '≤ 3 µs', ok: judged(sized.every((row) => row.p50 <= 3)) },
    { name: `p99 per decision, ${sizes} policies`, value: `${list('p99')} µs`, target: '≤ 20 µs', ok: judged(sized.every((row) => row.p99 <= 20)) },
    {
      name: 'flat: p50 at the most policies over p50 at the fewest',
      value: `${lib.fmt(last.p50 / first.p50, 2)} ×`,
      target: '≤ 1.5 ×',
      ok: judged(last.p50 / first.p50 <= 1.5),
    },
    { name: 'compile 1,000 policies', value: `${Math.round(compileMs)} ms`, target: '≤ 2,000 ms', ok: judged(compileMs <= 2000) },
  ];
}

function cedarNote() {
  for (const from of [lib.ROOT, path.join(lib.ROOT, 'packages', 'policy-engine')]) {
    try {
      lib.require.resolve('@cedar-policy/cedar-wasm/nodejs', { paths: [from] });
      return undefined;
    } catch {
      // try the next place
    }
  }
  return '@cedar-policy/cedar-wasm is not installed, so the engine figures have no peer beside them; add it as a root devDependency (`npm install -D @cedar-policy/cedar-wasm`) to get the comparison.';
}

/** Takes `--chaos [minutes]` out of the arguments (the shared parser does not know it). */
function chaosOption(argv) {
  const rest = [];
  let minutes;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--chaos') {
      const next = argv[i + 1];
      minutes = next !== undefined && /^\d+(\.\d+)?$/.test(next) ? Number(argv[++i]) : null;
    } else if (argv[i].startsWith('--chaos=')) minutes = Number(argv[i].slice(8));
    else rest.push(argv[i]);
  }
  return { rest, minutes };
}

async function main() {
  const chaos = chaosOption(process.argv.slice(2));
  const options = lib.parseOptions(chaos.rest);
  if (chaos.minutes !== undefined) options.chaosMinutes = chaos.minutes ?? undefined;
  if (options.help) {
    console.log(USAGE);
    return 0;
  }
  for (const name of options.only ?? []) {
    if (!ALL.includes(name)) throw new Error(`unknown benchmark \`${name}\`; one of ${ALL.join(', ')}`);
  }
  // Always in the suite's order: scale and management share a stack, and management adds to it.
  const selected = options.only
    ? ALL.filter((name) => options.only.includes(name) || (name === 'chaos' && chaos.minutes !== undefined))
    : chaos.minutes !== undefined
      ? ['chaos']
      : options.soakMinutes !== undefined
        ? [...DEFAULT, 'soak']
        : DEFAULT;
  options.shared = new Map();

  const started = new Date();
  console.log(`# Custos benchmarks — ${started.toISOString()}${options.quick ? ' — QUICK (small sizes, short runs, noisy)' : ''}`);
  console.log(
    `node ${process.version}, ${cpus().length} cores (${cpus()[0]?.model ?? '?'}), load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}; running: ${selected.join(', ')}`,
  );

  const results = [];
  const failures = [];
  try {
    for (const name of selected) {
      if (lib.stopping()) break;
      const began = performance.now();
      try {
        let result;
        if (name === 'engine') {
          result = await runEngine(options);
          const note = cedarNote();
          if (note) result.notes.push(note);
          if (!existsSync(ENGINE_BENCH)) lib.printResult(result);
          else for (const line of result.notes) console.log(`- ${line}`);
        } else {
          console.log(`\n… ${name}`);
          const module = await import(`./bench/${name}.mjs`);
          result = await module.run(options);
          lib.printResult(result);
        }
        result.seconds = (performance.now() - began) / 1000;
        results.push(result);
      } catch (error) {
        failures.push(name);
        console.error(`\n!! ${name} failed: ${error?.stack ?? error}`);
      }
    }
  } finally {
    const fixture = options.shared.get('policy-stack');
    if (fixture) await fixture.core.stop();
    await lib.cleanupAll();
  }

  const rows = results.flatMap((r) =>
    (r.targets ?? []).map((t) => [r.name, t.name, t.value, t.target, t.ok === undefined ? 'info' : t.ok ? 'yes' : 'NO']),
  );
  for (const name of failures) rows.push([name, 'benchmark failed to run', '–', '–', 'NO']);
  console.log(`\n## Summary${options.quick ? ' (QUICK — noisy, smaller sizes)' : ''}\n`);
  console.log(lib.table(['benchmark', 'target', 'measured', 'wanted', 'met'], rows));
  const minutes = (Date.now() - started.getTime()) / 60_000;
  console.log(`\n${lib.fmt(minutes, 1)} min; load average now ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);

  if (options.json) {
    const data = {
      at: started.toISOString(),
      quick: options.quick,
      node: process.version,
      results: results.map(({ name, title, tables, targets, notes, figures, seconds }) => ({ name, title, tables, targets, notes, figures, seconds })),
      failures,
    };
    writeFileSync(options.json, `${JSON.stringify(data, null, 2)}\n`);
    console.log(`figures written to ${options.json}`);
  }
  return failures.length > 0 ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  async (error) => {
    console.error(error?.message ?? error);
    console.error(USAGE);
    await lib.cleanupAll();
    process.exit(2);
  },
);
