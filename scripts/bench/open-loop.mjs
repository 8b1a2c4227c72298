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
// prepared once, answers read without a parser or a string, one sweep for timeouts instead of a timer per request.
//
// Punctual without spinning (issue 26, item 3): this thread's timers fire on whole milliseconds, so a generator that
// sends from them sends bursts per tick, and at 3,000/s it was ~2 ms late at the p99 — as much as the target it was
// to measure. Requests are now written by a worker thread (open-loop-sender.mjs) that sleeps in Atomics.wait until
// each request's own due moment (a futex timeout, sub-millisecond) and writes it with one write(2) on the socket's
// descriptor; this thread only reads the answers. No thread spins. The cost is one wake-up of each thread per request
// instead of one per millisecond tick plus one per burst of answers: on this VM ~15 µs more CPU per request at
// 1,000/s and 25–35 µs at 3,000–5,000/s (about 0.1 of a core at 3,000/s; BENCHMARKS.md, issue 26 item 3, session 8),
// and the server under test, sent requests one by one instead of in bursts, wakes up more often too (evenly spaced
// arrivals cost it what they cost it in production; bursts let it batch). `sendLag` says how late this generator was all the
// same (a busy machine delays any thread), and `fromSend` gives the latencies from the moment each request was
// written, so a reader can tell the generator's share from the server's.
//
// Why connections are opened first and why there is a warm-up (issue 26): the generator used to open connections
// as it went, so the first milliseconds of a run opened one connection per request (each a TCP handshake, an accept
// and a fresh parser in the server, while the generator's own code was still interpreted) and those requests — a few
// hundred of a 10-second run — were timed at several ms: enough to own the p99 of a server that answers in 0.1 ms.
import net from 'node:net';
import { Worker } from 'node:worker_threads';
import { contentLength, HEADER_END } from './lib/answer-head.mjs';
import { clockOrigin } from './lib/clock-origin.mjs';

const options = JSON.parse(process.argv[2] ?? '{}');
if (!Array.isArray(options.urls) || options.urls.length === 0 || !(options.rate > 0) || !(options.seconds > 0)) {
  console.error('usage: node scripts/bench/open-loop.mjs \'{"urls":["http://127.0.0.1:8080/event"],"bodies":["{}"],"rate":1000,"seconds":10}\'');
  process.exit(2);
}
const { urls, headers = {}, bodies = [''], rate, seconds, timeoutMs = 10_000, expect, warmupSeconds = 0 } = options;
// Enough idle connections for ~4 ms of requests in flight at once per url; more are opened while every one is busy,
// up to four times as many, and beyond that a request waits for the next free connection (still timed from its due
// moment): opening one connection per request when a server falls behind — what this generator once did — adds a
// handshake and an accept to each request of a server that is already behind.
const connections = options.connections ?? Math.max(8, Math.ceil((rate / urls.length) * 0.004) + 8);
const maxConnections = options.maxConnections ?? 4 * connections;

const targets = urls.map((url, number) => {
  const target = new URL(url);
  const head = Object.entries({ Host: target.host, Connection: 'keep-alive', ...headers })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  // Request i goes to target i % urls and carries body i % bodies: its bytes, prepared once.
  const requests = bodies.map((body) => {
    const payload = Buffer.from(body);
    return Buffer.concat([Buffer.from(`POST ${target.pathname}${target.search} HTTP/1.1\r\n${head}Content-Length: ${payload.length}\r\n\r\n`), payload]);
  });
  return { number, host: target.hostname, port: Number(target.port || 80), requests, conns: [], waiting: [], waitHead: 0 };
});

const warmup = Math.round(rate * warmupSeconds);
const measured = Math.round(rate * seconds);
const total = warmup + measured;
const intervalMs = 1000 / rate;
// Index i - warmup of the measured requests; warm-up requests are answered and dropped.
const latencies = new Float64Array(measured);
const fromSend = new Float64Array(measured);
const shared = (type, length) => new type(new SharedArrayBuffer(type.BYTES_PER_ELEMENT * length));
const sendLag = shared(Float64Array, measured);
// One slot per connection, shared with the sending thread (open-loop-sender.mjs): its state (0 idle, 1 busy,
// 2 closed, 3 not yet idle), descriptor, target, request index (-1 none) and that request's due and sent moments.
const maxSlots = maxConnections * targets.length;
const state = shared(Int32Array, maxSlots).fill(3);
const fds = shared(Int32Array, maxSlots);
const targetOf = shared(Int32Array, maxSlots);
const indexOf = shared(Int32Array, maxSlots).fill(-1);
const times = shared(Float64Array, 2 * maxSlots);
const slotCount = shared(Int32Array, 1);
const conns = [];
let completed = 0;
let answered = 0;
let non2xx = 0;
let errors = 0;
let unexpected = 0;
let lastAnswerAt = 0;
let opened = 0;
const statusCodes = {};

const ALLOWED = Buffer.from('"eventAllowed":true');

/** Opens a connection in a new slot (busy until `connected`, so the sending thread leaves it alone), or undefined at the cap. */
function connection(target) {
  if (target.conns.length >= maxConnections) return undefined;
  // A closed connection's slot is taken again (it is at state 2, which the sending thread never claims).
  const free = conns.findIndex((other) => other.closed);
  const slot = free < 0 ? conns.length : free;
  const conn = { target, slot, socket: net.connect(target.port, target.host), data: null, bodyStart: -1, length: -1, closed: false, ready: false };
  opened += 1;
  conns[slot] = conn;
  target.conns.push(conn);
  targetOf[slot] = target.number;
  Atomics.store(state, slot, 3);
  Atomics.store(slotCount, 0, conns.length);
  conn.socket.setNoDelay(true);
  conn.socket.on('data', (chunk) => received(conn, chunk));
  conn.socket.on('error', () => failed(conn));
  conn.socket.on('close', () => failed(conn));
  conn.socket.once('connect', () => {
    fds[slot] = conn.socket._handle.fd;
    conn.ready = true;
    release(conn);
  });
  return conn;
}

/** Sends a request from this thread (one the sending thread found no idle connection for) on a claimed connection. */
function sendOn(conn, index, due) {
  const { slot, target } = conn;
  const now = performance.now();
  times[2 * slot] = due;
  times[2 * slot + 1] = now;
  Atomics.store(indexOf, slot, index);
  if (index >= warmup) sendLag[index - warmup] = now - due;
  conn.socket.write(target.requests[index % target.requests.length]);
}

/** A request the sending thread found no idle connection for: an idle one if one came free, else a new one, else the queue. */
function overflow(index, due) {
  const target = targets[index % targets.length];
  const idle = target.conns.find((conn) => Atomics.compareExchange(state, conn.slot, 0, 1) === 0);
  if (idle !== undefined) return sendOn(idle, index, due);
  target.waiting.push(index, due);
  connection(target);
}

/** Reads an answer: its status line and Content-Length, then the body. */
function received(conn, chunk) {
  const index = Atomics.load(indexOf, conn.slot);
  if (index < 0) return;
  conn.data = conn.data === null ? chunk : Buffer.concat([conn.data, chunk]);
  const data = conn.data;
  if (conn.bodyStart < 0) {
    const end = data.indexOf(HEADER_END);
    if (end < 0) return;
    conn.bodyStart = end + 4;
    conn.length = contentLength(data, end);
    if (conn.length < 0) return failed(conn);
  }
  if (data.length < conn.bodyStart + conn.length) return;
  const now = performance.now();
  const status = (data[9] - 48) * 100 + (data[10] - 48) * 10 + (data[11] - 48);
  if (index >= warmup) {
    latencies[index - warmup] = now - times[2 * conn.slot];
    fromSend[index - warmup] = now - times[2 * conn.slot + 1];
    lastAnswerAt = now;
    answered += 1;
    statusCodes[status] = (statusCodes[status] ?? 0) + 1;
    if (status < 200 || status >= 300) non2xx += 1;
    else if (expect === 'allowed' && data.indexOf(ALLOWED, conn.bodyStart) < 0) unexpected += 1;
  }
  conn.data = null;
  conn.bodyStart = -1;
  Atomics.store(indexOf, conn.slot, -1);
  release(conn);
  done();
}

/** A free connection takes the oldest request waiting for one, or goes idle (for the sending thread to claim). */
function release(conn) {
  const first = takeWaiting(conn.target);
  if (first === undefined) Atomics.store(state, conn.slot, 0);
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
function failed(conn) {
  conn.socket.destroy();
  if (conn.closed) return;
  conn.closed = true;
  // Closed for the sending thread too; if it had just claimed the connection, its index is published within µs.
  if (Atomics.exchange(state, conn.slot, 2) === 1) while (Atomics.load(indexOf, conn.slot) < 0);
  const index = Atomics.exchange(indexOf, conn.slot, -1);
  conn.target.conns.splice(conn.target.conns.indexOf(conn), 1);
  // A request waiting for a connection gets a new one in place of this one.
  if (conn.target.waitHead < conn.target.waiting.length) connection(conn.target);
  if (index < 0) return;
  if (index >= warmup) {
    latencies[index - warmup] = performance.now() - times[2 * conn.slot];
    fromSend[index - warmup] = performance.now() - times[2 * conn.slot + 1];
    errors += 1;
  }
  done();
}

/** Voluntary and involuntary context switches of this process (all its threads) so far. */
function contextSwitches() {
  const usage = process.resourceUsage();
  return usage.voluntaryContextSwitches + usage.involuntaryContextSwitches;
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
        conn.socket.once('connect', resolve);
        conn.socket.once('error', reject);
      });
    }),
  ),
);
const openedFirst = opened;

const sweep = setInterval(() => {
  const now = performance.now();
  for (const conn of conns) if (!conn.closed && Atomics.load(indexOf, conn.slot) >= 0 && now - times[2 * conn.slot] > timeoutMs) failed(conn);
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

const sender = new Worker(new URL('./open-loop-sender.mjs', import.meta.url), {
  workerData: {
    requests: targets.map((target) => target.requests.map((request) => new Uint8Array(request))),
    targetCount: targets.length,
    total,
    warmup,
    intervalMs,
    mainOriginHr: clockOrigin(),
    startDelayMs: 5,
    state: state.buffer,
    fds: fds.buffer,
    targetOf: targetOf.buffer,
    indexOf: indexOf.buffer,
    times: times.buffer,
    slotCount: slotCount.buffer,
    sendLag: sendLag.buffer,
  },
});
let measuredFrom;
let cpuAtMeasured;
let switchesAtMeasured;
sender.on('message', (message) => {
  if (message.overflow !== undefined) overflow(message.overflow, message.due);
  else if (message.resend !== undefined) {
    const conn = conns[message.resend];
    const index = Atomics.load(indexOf, conn.slot);
    if (!conn.closed && index >= 0) conn.socket.write(conn.target.requests[index % conn.target.requests.length]);
  } else if (message.started !== undefined) {
    measuredFrom = message.started + warmup * intervalMs;
    setTimeout(() => {
      cpuAtMeasured = process.cpuUsage();
      switchesAtMeasured = contextSwitches();
    }, Math.max(0, measuredFrom - performance.now()));
  }
});
sender.on('error', (error) => {
  console.error(`open-loop sender: ${error?.stack ?? error}`);
  process.exit(1);
});
await finished;
clearInterval(sweep);
const cpu = process.cpuUsage(cpuAtMeasured);
const switches = contextSwitches() - switchesAtMeasured;
for (const conn of conns) conn.socket.destroy();

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
    // Its context switches per measured request (both threads): each is a sleep and a wake-up, the CPU cost that counts here.
    contextSwitchesPerRequest: round(switches / measured),
    connections: { openedFirst, openedDuringRun: opened - openedFirst, max: maxConnections * targets.length },
    non2xx,
    errors,
    unexpected,
    statusCodes,
  })}\n`,
);
process.exit(0);
