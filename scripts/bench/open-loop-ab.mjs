// How punctual the open-loop generator is and what it costs the server it measures (issue 26, item 3): the floor
// server (floor-server.mjs) under two generators in turn, alternating, at a few rates.
// `node scripts/bench/open-loop-ab.mjs '{"old":"/path/to/old/open-loop.mjs","rates":[1000,3000,5000],"rounds":3,"seconds":8}'`
// (`old` defaults to none: then only this tree's generator runs). Per run it prints the latency p99 from the due
// moment and from the write, the generator's send lag, its CPU and context switches per request, and the server's
// CPU and context switches per request (/proc, over the whole run, warm-up included, divided by all its requests).
// A measuring tool, not part of the benchmark suite.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const options = JSON.parse(process.argv[2] ?? '{}');
const { rates = [1000, 3000, 5000], rounds = 3, seconds = 8, warmupSeconds = 1 } = options;
const generators = [...(options.old ? [['old', options.old]] : []), ['new', path.join(here, 'open-loop.mjs')]];
const ticksPerSecond = 100;

/** CPU (µs, user + system) and context switches (all threads) of a process so far. */
function usage(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const cpuUs = ((Number(fields[11]) + Number(fields[12])) * 1e6) / ticksPerSecond;
  let switches = 0;
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    const status = readFileSync(`/proc/${pid}/task/${task}/status`, 'utf8');
    for (const match of status.matchAll(/^(?:non)?voluntary_ctxt_switches:\s+(\d+)$/gm)) switches += Number(match[1]);
  }
  return { cpuUs, switches };
}

function run(file, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [file, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').pop())) : reject(new Error(`${file} exited ${code}`))));
  });
}

const port = 18_000 + Math.floor(Math.random() * 2000);
const server = spawn(process.execPath, [path.join(here, 'floor-server.mjs'), String(port)], { stdio: 'ignore' });
process.on('exit', () => server.kill());
await new Promise((resolve) => setTimeout(resolve, 500));
const url = `http://127.0.0.1:${port}/event`;
const line = (...cells) => console.log(cells.map(String).join('\t'));
line('rate', 'gen', 'p99 due', 'p99 send', 'lag p50', 'lag p99', 'lag max', 'gen µs/req', 'gen cs/req', 'srv µs/req', 'srv cs/req', 'failed', 'load');
// A first, discarded run warms the server up.
await run(generators[0][1], [JSON.stringify({ urls: [url], bodies: ['{"a":1}'], rate: 1000, seconds: 2 })]);
for (const rate of rates) {
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? generators : [...generators].reverse();
    for (const [name, file] of order) {
      const before = usage(server.pid);
      const result = await run(file, [JSON.stringify({ urls: [url], bodies: ['{"a":1}'], rate, seconds, warmupSeconds })]);
      const after = usage(server.pid);
      const requests = rate * (seconds + warmupSeconds);
      line(
        rate,
        name,
        result.latency.p99,
        result.fromSend.p99,
        result.sendLag.p50,
        result.sendLag.p99,
        result.sendLag.max,
        result.cpuUsPerRequest,
        result.contextSwitchesPerRequest ?? '–',
        ((after.cpuUs - before.cpuUs) / requests).toFixed(1),
        ((after.switches - before.switches) / requests).toFixed(2),
        result.non2xx + result.errors,
        readFileSync('/proc/loadavg', 'utf8').split(' ')[0],
      );
    }
  }
}
server.kill();
