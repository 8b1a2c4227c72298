// An open-loop load generator as its own process: `node scripts/bench/open-loop.mjs '<options as JSON>'`.
// Sends requests at a fixed rate whatever the answers do: request i is due at start + i / rate, and its latency is
// counted from that due moment to its answer, so time spent queued anywhere — in the server, in a pool, behind an
// earlier request, or in this generator when it falls behind — is counted (no coordinated omission). A closed-loop
// client (autocannon, even with a rate) waits for an answer before the next request of a connection, so a slow
// answer delays the requests behind it and they are never timed as late.
// Options: urls (requests go round-robin over them), headers, bodies (cycled), rate (per second, over all urls),
// seconds, timeoutMs, expect ('allowed': a 200 must say eventAllowed true). Prints one JSON line.
// Started by history.mjs; not a benchmark of its own.
//
// It shares 2 cores with what it measures, so it costs as little as it can: plain keep-alive sockets (a request
// goes on an idle one, or on a new one when every one is busy — never queued behind an answer), each request's bytes
// prepared once, answers read without a parser, one sweep for timeouts instead of a timer per request, and timers
// (not a spinning loop) between due moments: a request sent up to ~1 ms late is timed from its due moment all the
// same, and `sendLag` reports how late this generator was.
import net from 'node:net';

const options = JSON.parse(process.argv[2] ?? '{}');
if (!Array.isArray(options.urls) || options.urls.length === 0 || !(options.rate > 0) || !(options.seconds > 0)) {
  console.error('usage: node scripts/bench/open-loop.mjs \'{"urls":["http://127.0.0.1:8080/event"],"bodies":["{}"],"rate":1000,"seconds":10}\'');
  process.exit(2);
}
const { urls, headers = {}, bodies = [''], rate, seconds, timeoutMs = 10_000, expect } = options;

const targets = urls.map((url) => {
  const target = new URL(url);
  const head = Object.entries({ Host: target.host, Connection: 'keep-alive', ...headers })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  // Request i goes to target i % urls and carries body i % bodies: its bytes, prepared once.
  const requests = bodies.map((body) => {
    const payload = Buffer.from(body);
    return Buffer.concat([Buffer.from(`POST ${target.pathname}${target.search} HTTP/1.1\r\n${head}Content-Length: ${payload.length}\r\n\r\n`), payload]);
  });
  return { host: target.hostname, port: Number(target.port || 80), requests, idle: [] };
});

const total = Math.round(rate * seconds);
const intervalMs = 1000 / rate;
const latencies = new Float64Array(total);
const sendLag = new Float64Array(total);
let completed = 0;
let answered = 0;
let non2xx = 0;
let errors = 0;
let unexpected = 0;
let lastAnswerAt = 0;
const statusCodes = {};
/** Connections with a request on them. */
const busy = new Set();

const HEADER_END = Buffer.from('\r\n\r\n');
const ALLOWED = Buffer.from('"eventAllowed":true');

function connection(target) {
  const conn = { target, socket: net.connect(target.port, target.host), index: -1, due: 0, data: null, bodyStart: -1, length: -1 };
  conn.socket.setNoDelay(true);
  conn.socket.on('data', (chunk) => received(conn, chunk));
  conn.socket.on('error', () => failed(conn));
  conn.socket.on('close', () => failed(conn));
  return conn;
}

function send(index, due) {
  const target = targets[index % targets.length];
  const conn = target.idle.pop() ?? connection(target);
  conn.index = index;
  conn.due = due;
  busy.add(conn);
  sendLag[index] = performance.now() - due;
  conn.socket.write(target.requests[index % target.requests.length]);
}

/** Reads an answer: its status line and Content-Length (the pdp never answers chunked), then the body. */
function received(conn, chunk) {
  if (conn.index < 0) return;
  conn.data = conn.data === null ? chunk : Buffer.concat([conn.data, chunk]);
  const data = conn.data;
  if (conn.bodyStart < 0) {
    const end = data.indexOf(HEADER_END);
    if (end < 0) return;
    conn.bodyStart = end + 4;
    const head = data.toString('latin1', 0, end);
    const match = /\r\ncontent-length: *(\d+)/i.exec(head);
    if (match === null) return failed(conn, true);
    conn.length = Number(match[1]);
  }
  if (data.length < conn.bodyStart + conn.length) return;
  const now = performance.now();
  const status = (data[9] - 48) * 100 + (data[10] - 48) * 10 + (data[11] - 48);
  const index = conn.index;
  latencies[index] = now - conn.due;
  lastAnswerAt = now;
  answered += 1;
  statusCodes[status] = (statusCodes[status] ?? 0) + 1;
  if (status < 200 || status >= 300) non2xx += 1;
  else if (expect === 'allowed' && data.indexOf(ALLOWED, conn.bodyStart) < 0) unexpected += 1;
  conn.index = -1;
  conn.data = null;
  conn.bodyStart = -1;
  busy.delete(conn);
  conn.target.idle.push(conn);
  done();
}

/** A connection that broke (or timed out, or answered what this reader does not read) fails its request. */
function failed(conn, destroy = false) {
  const idle = conn.target.idle.indexOf(conn);
  if (idle >= 0) conn.target.idle.splice(idle, 1);
  if (destroy || !conn.socket.destroyed) conn.socket.destroy();
  if (conn.index < 0) return;
  latencies[conn.index] = performance.now() - conn.due;
  conn.index = -1;
  busy.delete(conn);
  errors += 1;
  done();
}

let finish;
const finished = new Promise((resolve) => (finish = resolve));
function done() {
  completed += 1;
  if (completed === total) finish();
}

const sweep = setInterval(() => {
  const now = performance.now();
  for (const conn of busy) if (now - conn.due > timeoutMs) failed(conn, true);
}, 100);

const started = performance.now();
let next = 0;
// Every tick sends all requests due by now (several when a tick comes late: they are still timed from their due moment).
function tick() {
  const now = performance.now();
  while (next < total && started + next * intervalMs <= now) {
    send(next, started + next * intervalMs);
    next += 1;
  }
  if (next < total) setTimeout(tick, Math.min(Math.max(started + next * intervalMs - performance.now(), 0), 50));
}
tick();
await finished;
clearInterval(sweep);
for (const target of targets) for (const conn of target.idle) conn.socket.destroy();

const sorted = Array.from(latencies).sort((a, b) => a - b);
const lags = Array.from(sendLag).sort((a, b) => a - b);
const at = (values, p) => values[Math.min(values.length - 1, Math.max(0, Math.ceil((p / 100) * values.length) - 1))];
const round = (value) => Math.round(value * 100) / 100;
const elapsedSeconds = (lastAnswerAt - started) / 1000;
const cpu = process.cpuUsage();
process.stdout.write(
  `${JSON.stringify({
    title: options.title ?? '',
    rate,
    seconds,
    total,
    answered,
    achievedPerSecond: answered / Math.max(elapsedSeconds, seconds),
    latency: { p50: round(at(sorted, 50)), p90: round(at(sorted, 90)), p99: round(at(sorted, 99)), p999: round(at(sorted, 99.9)), max: round(sorted[sorted.length - 1]) },
    // How late this generator itself sent requests (a busy machine): included in the latencies above.
    sendLag: { p50: round(at(lags, 50)), p99: round(at(lags, 99)), max: round(lags[lags.length - 1]) },
    // This generator's own CPU time per request (µs), taken from what it measures.
    cpuUsPerRequest: round((cpu.user + cpu.system) / total),
    non2xx,
    errors,
    unexpected,
    statusCodes,
  })}\n`,
);
process.exit(0);
