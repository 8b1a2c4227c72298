// Load generators as their own processes: autocannon, wrk and the open-loop generator.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { BENCH_DIR } from './base.mjs';
import { children, onCleanup, spawnNode } from './processes.mjs';

// ---------------------------------------------------------------------------------------------
// Load generation: autocannon in its own process (scripts/bench/load.mjs), so the generator's
// CPU is not this process's and its figures are not skewed by our own event loop.

/**
 * Runs autocannon in a child process. `options` are autocannon's (url, method, headers, body,
 * connections, duration, overallRate, ...). Resolves the summary load.mjs prints.
 */
export async function runLoad(options, { label = 'autocannon' } = {}) {
  const proc = spawnNode(path.join(BENCH_DIR, 'load.mjs'), { args: [JSON.stringify(options)], stdout: 'pipe', label });
  const stop = onCleanup(() => proc.kill());
  const chunks = [];
  proc.child.stdout.on('data', (chunk) => chunks.push(chunk));
  const code = await proc.exited;
  await stop();
  const text = Buffer.concat(chunks).toString('utf8').trim();
  const line = text.split('\n').filter((l) => l.startsWith('{')).pop();
  if (code !== 0 || !line) throw new Error(`load generator failed (${code}): ${proc.tail().slice(-2000)}`);
  return JSON.parse(line);
}

// ---------------------------------------------------------------------------------------------
// Load generation with wrk: a C program that costs far less CPU per request than autocannon. On 2 cores
// shared by the server and the generator, the generator's CPU is taken from the server, so the cheaper
// generator is the one that measures the server (Debian: `apt-get install -y wrk`).

/** The path of the wrk executable on PATH, or undefined. */
export function wrkPath() {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const file = path.join(dir, 'wrk');
    if (existsSync(file)) return file;
  }
  return undefined;
}

// wrk's script: the request, and one JSON line of figures at the end (latencies in µs).
const wrkScript = (method, headers, body) => {
  // A Lua string literal of the UTF-8 bytes: printable ASCII as is, everything else as a decimal escape.
  const lua = (text) =>
    `"${[...Buffer.from(String(text), 'utf8')].map((b) => (b >= 0x20 && b < 0x7f && b !== 0x22 && b !== 0x5c ? String.fromCharCode(b) : `\\${String(b).padStart(3, '0')}`)).join('')}"`;
  const lines = [`wrk.method = ${lua(method)}`];
  if (body !== undefined) lines.push(`wrk.body = ${lua(body)}`);
  for (const [name, value] of Object.entries(headers)) lines.push(`wrk.headers[${lua(name)}] = ${lua(value)}`);
  lines.push(
    'done = function(summary, latency, requests)',
    '  local e = summary.errors',
    '  io.write(string.format(\'{"total":%d,"durationUs":%d,"bytes":%d,"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d,' +
      '"mean":%.1f,"p50":%d,"p90":%d,"p99":%d,"p999":%d,"max":%d}\\n\',',
    '    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.status, e.timeout,',
    '    latency.mean, latency:percentile(50), latency:percentile(90), latency:percentile(99), latency:percentile(99.9), latency.max))',
    'end',
  );
  return `${lines.join('\n')}\n`;
};

/**
 * One run of wrk (one thread, `connections` keep-alive connections, no pipelining) for `duration` seconds.
 * Resolves the same summary as runLoad (latencies in ms, with µs resolution) plus `generator: 'wrk'`.
 */
export async function runWrk({ url, method = 'GET', headers = {}, body, connections = 50, duration = 10, title = '' }, { label = 'wrk' } = {}) {
  const executable = wrkPath();
  if (!executable) throw new Error('wrk is not installed (Debian: `apt-get install -y wrk`)');
  for (const [name, value] of Object.entries(headers)) {
    if (/[\r\n]/.test(`${name}${value}`)) throw new Error(`header \`${name}\` holds a line break`);
  }
  const dir = mkdtempSync(path.join(tmpdir(), 'custos-wrk-'));
  const script = path.join(dir, 'request.lua');
  writeFileSync(script, wrkScript(method, headers, body));
  const child = spawn(executable, ['-t1', `-c${connections}`, `-d${duration}s`, '--timeout', '10s', '-s', script, url], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  const stop = onCleanup(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  const out = [];
  const err = [];
  child.stdout.on('data', (chunk) => out.push(chunk));
  child.stderr.on('data', (chunk) => err.push(chunk));
  // 'close', not 'exit': 'exit' may come before the last of the child's output has been read from its pipes (under
  // load, a wrk process's summary line was then missing although it had exited 0). 'close' comes after both pipes end.
  const code = await new Promise((resolve) => child.once('close', (exitCode, signal) => resolve(exitCode ?? signal)));
  children.delete(child);
  await stop();
  rmSync(dir, { recursive: true, force: true });
  const text = Buffer.concat(out).toString('utf8');
  const line = text.split('\n').filter((l) => l.startsWith('{')).pop();
  if (code !== 0 || !line) throw new Error(`${label} failed (${code}): ${`${text}\n${Buffer.concat(err).toString('utf8')}`.slice(-2000)}`);
  const r = JSON.parse(line);
  const ms = (us) => us / 1000;
  const seconds = r.durationUs / 1e6;
  return {
    generator: 'wrk',
    title,
    url,
    connections,
    seconds,
    total: r.total,
    requestsPerSecond: r.total / seconds,
    latency: { mean: ms(r.mean), p50: ms(r.p50), p90: ms(r.p90), p99: ms(r.p99), p999: ms(r.p999), max: ms(r.max) },
    errors: r.connect + r.read + r.write,
    timeouts: r.timeout,
    non2xx: r.status,
    throughputBytesPerSecond: r.bytes / seconds,
  };
}

/**
 * The cheapest load generator available: wrk when installed, else autocannon (runLoad) with
 * `generator: 'autocannon'` in the result, so the caller can say which one measured.
 */
export async function runCheapLoad(options, { label = 'load' } = {}) {
  if (wrkPath()) return runWrk(options, { label });
  return { generator: 'autocannon', ...(await runLoad(options, { label })) };
}


/**
 * One run of the open-loop generator (scripts/bench/open-loop.mjs, its own process, or `script`): requests at a fixed
 * rate, each timed from the moment it was due. Answers its JSON summary.
 */
export async function runOpenLoop(options, script = path.join(BENCH_DIR, 'open-loop.mjs')) {
  const proc = spawnNode(script, { args: [JSON.stringify(options)], stdout: 'pipe', label: `open-loop-${options.title ?? ''}` });
  const stop = onCleanup(() => proc.kill());
  const chunks = [];
  proc.child.stdout.on('data', (chunk) => chunks.push(chunk));
  const code = await proc.exited;
  await stop();
  const line = Buffer.concat(chunks).toString('utf8').trim().split('\n').filter((l) => l.startsWith('{')).pop();
  if (code !== 0 || !line) throw new Error(`open-loop generator failed (${code}): ${proc.tail().slice(-2000)}`);
  return JSON.parse(line);
}
