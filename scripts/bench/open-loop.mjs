// An open-loop load generator as its own process: `node scripts/bench/open-loop.mjs '<options as JSON>'`.
// Sends requests at a fixed rate whatever the answers do: request i is due at start + i / rate, and its latency is
// counted from that due moment to its answer, so time spent queued anywhere — in the server, in a pool, behind an
// earlier request, or in this generator when it falls behind — is counted (no coordinated omission). A closed-loop
// client (autocannon, even with a rate) waits for an answer before the next request of a connection, so a slow
// answer delays the requests behind it and they are never timed as late.
// Options: urls (requests go round-robin over them), headers, bodies (cycled), rate (per second, over all urls),
// seconds, timeoutMs, expect ('allowed': a 200 must say eventAllowed true), connections (per url, opened before the
// clock starts; default enough for the rate), warmupSeconds (sent at the rate before the measured part and not
// counted; default 0, since a history benchmark counts every decision). Prints one JSON line.
// Started by http.mjs and history.mjs; not a benchmark of its own.
//
// It shares 2 cores with what it measures, so it costs as little as it can: plain keep-alive sockets (a request
// goes on an idle one, or on a new one when every one is busy — never queued behind an answer), each request's bytes
// prepared once, answers read without a parser or a string, one sweep for timeouts instead of a timer per request,
// and timers (not a spinning loop) between due moments. Node's timers fire on whole milliseconds, so a request is
// sent up to ~1 ms after its due moment and timed from that moment all the same: `sendLag` says how late this
// generator was, and `fromSend` gives the latencies from the moment each request was written, so a reader can tell
// the generator's share from the server's.
//
// Why connections are opened first and why there is a warm-up (issue 26): the generator used to open connections
// as it went, so the first milliseconds of a run opened one connection per request (each a TCP handshake, an accept
// and a fresh parser in the server, while the generator's own code was still interpreted) and those requests — a few
// hundred of a 10-second run — were timed at several ms: enough to own the p99 of a server that answers in 0.1 ms.
import net from 'node:net';

const options = JSON.parse(process.argv[2] ?? '{}');
if (!Array.isArray(options.urls) || options.urls.length === 0 || !(options.rate > 0) || !(options.seconds > 0)) {
  console.error('usage: node scripts/bench/open-loop.mjs \'{"urls":["http://127.0.0.1:8080/event"],"bodies":["{}"],"rate":1000,"seconds":10}\'');
  process.exit(2);
}
const { urls, headers = {}, bodies = [''], rate, seconds, timeoutMs = 10_000, expect, warmupSeconds = 0 } = options;
// Enough idle connections for ~4 ms of requests in flight at once per url (timer ticks send bursts); more are opened
// while every one is busy, up to four times as many, and beyond that a request waits for the next free connection
// (still timed from its due moment): opening one connection per request when a server falls behind — what this
// generator once did — adds a handshake and an accept to each request of a server that is already behind.
const connections = options.connections ?? Math.max(8, Math.ceil((rate / urls.length) * 0.004) + 8);
const maxConnections = options.maxConnections ?? 4 * connections;

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
  return { host: target.hostname, port: Number(target.port || 80), requests, idle: [], open: 0, waiting: [], waitHead: 0 };
});

const warmup = Math.round(rate * warmupSeconds);
const measured = Math.round(rate * seconds);
const total = warmup + measured;
const intervalMs = 1000 / rate;
// Index i - warmup of the measured requests; warm-up requests are answered and dropped.
const latencies = new Float64Array(measured);
const fromSend = new Float64Array(measured);
const sendLag = new Float64Array(measured);
let completed = 0;
let answered = 0;
let non2xx = 0;
let errors = 0;
let unexpected = 0;
let lastAnswerAt = 0;
let opened = 0;
const statusCodes = {};
/** Connections with a request on them. */
const busy = new Set();

const HEADER_END = Buffer.from('\r\n\r\n');
const ALLOWED = Buffer.from('"eventAllowed":true');
// node:http writes a header name as the server gave it; both spellings are searched without making a string.
const LENGTH_NAMES = [Buffer.from('\r\nContent-Length:'), Buffer.from('\r\ncontent-length:')];

function connection(target) {
  opened += 1;
  target.open += 1;
  const conn = { target, socket: net.connect(target.port, target.host), index: -1, due: 0, sentAt: 0, data: null, bodyStart: -1, length: -1 };
  conn.socket.setNoDelay(true);
  conn.socket.on('data', (chunk) => received(conn, chunk));
  conn.socket.on('error', () => failed(conn));
  conn.socket.on('close', () => failed(conn));
  return conn;
}

function send(index, due) {
  const target = targets[index % targets.length];
  const conn = target.idle.pop() ?? (target.open < maxConnections ? connection(target) : undefined);
  if (conn === undefined) target.waiting.push(index, due);
  else sendOn(conn, index, due);
}

function sendOn(conn, index, due) {
  const { target } = conn;
  conn.index = index;
  conn.due = due;
  busy.add(conn);
  const now = performance.now();
  conn.sentAt = now;
  if (index >= warmup) sendLag[index - warmup] = now - due;
  conn.socket.write(target.requests[index % target.requests.length]);
}

/** The Content-Length of an answer's head (the pdp never answers chunked), or -1. */
function contentLength(data, headEnd) {
  for (const name of LENGTH_NAMES) {
    const at = data.indexOf(name);
    if (at < 0 || at > headEnd) continue;
    let value = 0;
    let digits = 0;
    for (let i = at + name.length; i < headEnd; i++) {
      const byte = data[i];
      if (byte === 32) continue;
      if (byte < 48 || byte > 57) break;
      value = value * 10 + (byte - 48);
      digits += 1;
    }
    return digits > 0 ? value : -1;
  }
  return -1;
}

/** Reads an answer: its status line and Content-Length, then the body. */
function received(conn, chunk) {
  if (conn.index < 0) return;
  conn.data = conn.data === null ? chunk : Buffer.concat([conn.data, chunk]);
  const data = conn.data;
  if (conn.bodyStart < 0) {
    const end = data.indexOf(HEADER_END);
    if (end < 0) return;
    conn.bodyStart = end + 4;
    conn.length = contentLength(data, end);
    if (conn.length < 0) return failed(conn, true);
  }
  if (data.length < conn.bodyStart + conn.length) return;
  const now = performance.now();
  const status = (data[9] - 48) * 100 + (data[10] - 48) * 10 + (data[11] - 48);
  const index = conn.index;
  if (index >= warmup) {
    latencies[index - warmup] = now - conn.due;
    fromSend[index - warmup] = now - conn.sentAt;
    lastAnswerAt = now;
    answered += 1;
    statusCodes[status] = (statusCodes[status] ?? 0) + 1;
    if (status < 200 || status >= 300) non2xx += 1;
    else if (expect === 'allowed' && data.indexOf(ALLOWED, conn.bodyStart) < 0) unexpected += 1;
  }
  conn.index = -1;
  conn.data = null;
  conn.bodyStart = -1;
  busy.delete(conn);
  release(conn);
  done();
}

/** A free connection takes the oldest request waiting for one, or goes idle. */
function release(conn) {
  const first = takeWaiting(conn.target);
  if (first === undefined) conn.target.idle.push(conn);
  else sendOn(conn, first[0], first[1]);
}

/** The oldest request waiting for a connection of `target` ([index, due]), taken off the queue; undefined if none. */
function takeWaiting(target) {
  const { waiting } = target;
  if (target.waitHead >= waiting.length) return undefined;
  const first = [waiting[target.waitHead], waiting[target.waitHead + 1]];
  target.waitHead += 2;
  if (target.waitHead === waiting.length) {
    waiting.length = 0;
    target.waitHead = 0;
  }
  return first;
}

/** A connection that broke (or timed out, or answered what this reader does not read) fails its request. */
function failed(conn, destroy = false) {
  const idle = conn.target.idle.indexOf(conn);
  if (idle >= 0) conn.target.idle.splice(idle, 1);
  if (!conn.closed) {
    conn.closed = true;
    conn.target.open -= 1;
    // A request waiting for a connection gets a new one in place of this one.
    const first = takeWaiting(conn.target);
    if (first !== undefined) sendOn(connection(conn.target), first[0], first[1]);
  }
  if (destroy || !conn.socket.destroyed) conn.socket.destroy();
  if (conn.index < 0) return;
  if (conn.index >= warmup) {
    latencies[conn.index - warmup] = performance.now() - conn.due;
    fromSend[conn.index - warmup] = performance.now() - conn.sentAt;
    errors += 1;
  }
  conn.index = -1;
  busy.delete(conn);
  done();
}

let finish;
const finished = new Promise((resolve) => (finish = resolve));
function done() {
  completed += 1;
  if (completed === total) finish();
}

// The connections, open before the first request is due (a refused one fails the run here, not its requests).
await Promise.all(
  targets.flatMap((target) =>
    Array.from({ length: connections }, () => {
      const conn = connection(target);
      return new Promise((resolve, reject) => {
        conn.socket.once('connect', () => {
          target.idle.push(conn);
          resolve();
        });
        conn.socket.once('error', reject);
      });
    }),
  ),
);
const openedFirst = opened;

const sweep = setInterval(() => {
  const now = performance.now();
  for (const conn of busy) if (now - conn.due > timeoutMs) failed(conn, true);
  // A request that waited for a connection longer than the timeout fails without being sent.
  for (const target of targets) {
    while (target.waitHead < target.waiting.length && now - target.waiting[target.waitHead + 1] > timeoutMs) {
      const [index, due] = takeWaiting(target);
      if (index >= warmup) {
        latencies[index - warmup] = now - due;
        fromSend[index - warmup] = 0;
        errors += 1;
      }
      done();
    }
  }
}, 100);

const started = performance.now();
const measuredFrom = started + warmup * intervalMs;
let cpuAtMeasured;
let next = 0;
// Every tick sends all requests due by now (several when a tick comes late: they are still timed from their due moment).
function tick() {
  const now = performance.now();
  if (cpuAtMeasured === undefined && now >= measuredFrom) cpuAtMeasured = process.cpuUsage();
  while (next < total && started + next * intervalMs <= now) {
    send(next, started + next * intervalMs);
    next += 1;
  }
  if (next < total) setTimeout(tick, Math.min(Math.max(started + next * intervalMs - performance.now(), 0), 50));
}
tick();
await finished;
clearInterval(sweep);
const cpu = process.cpuUsage(cpuAtMeasured);
for (const target of targets) for (const conn of target.idle) conn.socket.destroy();

const sorted = Array.from(latencies).sort((a, b) => a - b);
const sortedFromSend = Array.from(fromSend).sort((a, b) => a - b);
const lags = Array.from(sendLag).sort((a, b) => a - b);
const at = (values, p) => values[Math.min(values.length - 1, Math.max(0, Math.ceil((p / 100) * values.length) - 1))];
const round = (value) => Math.round(value * 100) / 100;
const percentiles = (values) => ({
  p50: round(at(values, 50)),
  p90: round(at(values, 90)),
  p99: round(at(values, 99)),
  p999: round(at(values, 99.9)),
  max: round(values[values.length - 1]),
});
const elapsedSeconds = (lastAnswerAt - measuredFrom) / 1000;
process.stdout.write(
  `${JSON.stringify({
    title: options.title ?? '',
    rate,
    seconds,
    warmupSeconds,
    total: measured,
    answered,
    achievedPerSecond: answered / Math.max(elapsedSeconds, seconds),
    latency: percentiles(sorted),
    // From the moment each request was written: the latencies above less this generator's lateness in sending.
    fromSend: percentiles(sortedFromSend),
    // How late this generator itself sent requests (timer ticks on whole ms, a busy machine): included in `latency`.
    sendLag: { p50: round(at(lags, 50)), p99: round(at(lags, 99)), max: round(lags[lags.length - 1]) },
    // This generator's own CPU time per measured request (µs), taken from what it measures.
    cpuUsPerRequest: round((cpu.user + cpu.system) / measured),
    connections: { openedFirst, openedDuringRun: opened - openedFirst, max: maxConnections * targets.length },
    non2xx,
    errors,
    unexpected,
    statusCodes,
  })}\n`,
);
process.exit(0);
