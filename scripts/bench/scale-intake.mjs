// Part of the scale benchmark (issue 26, item 2), run on its own: the pdp's snapshot intake in a process of its own,
// with nothing else in it, so that its CPU time and memory can be compared between builds on a loaded machine (CPU
// time is what other processes cannot stretch). A set of `--size` policies of the benchmark's shape is encoded once
// as pap encodes it (SnapshotParts of at most one NATS message each, trees as stored text, `deployedAt` when
// `--deployed-at`) and written to a file; each sample is a fresh `node` process that reads that file, then starts the
// pdp's own PolicySetFollower over a transport that hands it the messages one per turn of the event loop, as NATS
// would, and reports when the set is active: CPU of the intake, heap, V8's young generation and RSS over the same
// process before the intake, at ready and 1 s later.
//
//   node scripts/bench/scale-intake.mjs [--size 10000] [--rounds 3] [--deployed-at] [--base /path/to/other/checkout]
//
// With `--base`, each round runs the other checkout's built pdp first, then this one's (A/B, alternating).
// INTAKE_NODE_ARGS (space-separated) are node flags for every sample (e.g. `--max-semi-space-size=4`); INTAKE_GC=1
// forces one full collection right after "ready" (what a collection after the intake would give back by 1 s later).
//
// Read its RSS with care: a fresh process's young generation is 1 MB, so the intake grows it (up to 2 x 16 MB) and
// that shows as per-policy memory here; the pdp's has already grown while its modules loaded, before any policy.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '..', '..');
/** What pap leaves for a part: NATS's default max_payload less the envelope's headroom. */
const MAX_PAYLOAD = 1024 * 1024;
const SOLUTION = 'bench';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(`--${name}`);
  return at === -1 ? fallback : args[at + 1];
};

if (args[0] === '--child') await child(args[1], args[2]);
else await parent();

async function parent() {
  const size = Number(option('size', '10000'));
  const rounds = Number(option('rounds', '3'));
  const deployedAt = args.includes('--deployed-at');
  const base = option('base', undefined);
  const file = path.join(tmpdir(), `custos-intake-${size}${deployedAt ? '-at' : ''}.bin`);
  if (!existsSync(file)) await writeSet(file, size, deployedAt);
  const builds = base === undefined ? [['this', ROOT]] : [['base', path.resolve(base)], ['this', ROOT]];
  const nodeArgs = (process.env.INTAKE_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const rows = [];
  for (let round = 0; round < rounds; round++) {
    for (const [label, root] of builds) {
      const run = spawnSync(process.execPath, [...nodeArgs, fileURLToPath(import.meta.url), '--child', root, file], { encoding: 'utf8', maxBuffer: 1 << 24 });
      if (run.status !== 0) throw new Error(`${label}: ${run.stderr}`);
      const sample = JSON.parse(run.stdout.trim().split('\n').pop());
      rows.push({ label, round, ...sample });
      const kb = (bytes) => ((bytes / 1024) / size).toFixed(2);
      console.log(
        `${label} round ${round}: CPU ${sample.cpuMs.toFixed(0)} ms (wall ${sample.wallMs.toFixed(0)}, log ${sample.logMs} ms), ` +
          `KB/policy: heap ${kb(sample.ready.heap)} RSS ${kb(sample.ready.rss)} at ready, heap ${kb(sample.later.heap)} RSS ${kb(sample.later.rss)} 1 s later; ` +
          `new space ${(sample.ready.newSpace / 1e6).toFixed(1)} MB at ready, ${(sample.later.newSpace / 1e6).toFixed(1)} MB later; load ${sample.load}`,
      );
    }
  }
}

/** Encodes `size` policies as pap would answer a snapshot request, into one file of length-prefixed messages. */
async function writeSet(file, size, deployedAt) {
  const { maskPolicy } = await import('./lib.mjs');
  const require = createRequire(import.meta.url);
  const engine = require(path.join(ROOT, 'packages', 'policy-engine', 'dist', 'index.js'));
  const contracts = require(path.join(ROOT, 'packages', 'contracts', 'dist', 'index.js'));
  const policies = [];
  for (let i = 0; i < size; i++) {
    const xml = maskPolicy(`p${i}`, `a${i}`);
    const outcome = engine.loadPolicyTree(xml);
    if (!outcome.ok) throw new Error(`the engine refuses p${i}`);
    policies.push({ id: `urn:policy:${SOLUTION}:p${i}`, xml, treeJson: JSON.stringify(outcome.tree), ...(deployedAt ? { deployedAt: i + 1 } : {}) });
  }
  policies.sort((a, b) => (a.id < b.id ? -1 : 1));
  const messages = contracts.encodeSnapshotAnswer({ revision: size, policies, components: [] }, MAX_PAYLOAD);
  const total = messages.reduce((n, m) => n + 4 + m.length, 0);
  const out = Buffer.alloc(total);
  let at = 0;
  for (const message of messages) {
    out.writeUInt32LE(message.length, at);
    out.set(message, at + 4);
    at += 4 + message.length;
  }
  writeFileSync(file, out);
  console.log(`wrote ${messages.length} messages, ${(total / 1e6).toFixed(1)} MB, to ${file}`);
}

async function child(root, file) {
  const require = createRequire(path.join(root, 'package.json'));
  const v8 = require('node:v8');
  const contracts = require(path.join(root, 'packages', 'contracts', 'dist', 'index.js'));
  const { PolicySetFollower } = require(path.join(root, 'apps', 'pdp-service', 'dist', 'policy-set', 'follower.js'));
  const bytes = readFileSync(file);
  const messages = [];
  for (let at = 0; at < bytes.length; ) {
    const length = bytes.readUInt32LE(at);
    messages.push(bytes.subarray(at + 4, at + 4 + length));
    at += 4 + length;
  }
  let logMs = NaN;
  const quiet = () => {};
  const logger = {
    info: (fields, message) => {
      if (message === 'policy snapshot active') logMs = fields.ms;
    },
    debug: quiet,
    warn: quiet,
    error: (fields, message) => process.stderr.write(`${message} ${JSON.stringify(fields)}\n`),
    child: () => logger,
  };
  const transport = {
    connected: true,
    subscribeChanges: () => Promise.resolve(),
    onReconnect: quiet,
    close: () => Promise.resolve(),
    // One message per turn of the event loop, as they would come off the socket.
    fetchSnapshot: (sink) =>
      new Promise((resolve, reject) => {
        const assembler = new contracts.SnapshotAssembler(undefined, sink);
        let next = 0;
        const feed = () => {
          try {
            if (assembler.addMessage(messages[next++])) resolve(assembler.answer());
            else setImmediate(feed);
          } catch (error) {
            reject(error);
          }
        };
        setImmediate(feed);
      }),
  };
  const measure = () => {
    const newSpace = v8.getHeapSpaceStatistics().find((space) => space.space_name === 'new_space');
    const rss = Number(/VmRSS:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))[1]) * 1024;
    return { heap: v8.getHeapStatistics().used_heap_size, rss, newSpace: newSpace.physical_space_size };
  };
  const before = measure();
  const cpuBefore = process.cpuUsage();
  const wallBefore = performance.now();
  const follower = new PolicySetFollower({ transport, logger, resyncIntervalMs: 0 });
  await follower.start();
  if (!(await follower.waitForRevision(1, 600_000))) throw new Error('no set');
  const cpu = process.cpuUsage(cpuBefore);
  const wallMs = performance.now() - wallBefore;
  const ready = measure();
  if (process.env.INTAKE_GC === '1') {
    v8.setFlagsFromString('--expose-gc');
    const gc = require('node:vm').runInNewContext('gc');
    const t = process.cpuUsage();
    gc();
    const c = process.cpuUsage(t);
    process.stderr.write(`gc ${(c.user + c.system) / 1000} ms\n`);
  }
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const later = measure();
  const over = (m) => ({ heap: m.heap - before.heap, rss: m.rss - before.rss, newSpace: m.newSpace });
  const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  console.log(JSON.stringify({ cpuMs: (cpu.user + cpu.system) / 1000, wallMs, logMs, policies: follower.status().policies, ready: over(ready), later: over(later), load }));
  await follower.stop();
}
