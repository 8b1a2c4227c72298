// A cheap open-loop load generator for one URL, as its own process:
// `node scripts/bench/open-loop-sockets.mjs '<options as JSON>'`. Timing as open-loop.mjs: request i is due at
// start + i / rate and its latency runs from that due moment to its answer, so queueing anywhere (in the server, behind
// an earlier request, in this generator when it falls behind) is counted. Unlike open-loop.mjs it speaks HTTP/1.1 over
// plain sockets with one request prepared as bytes, because at the rates of the HTTP benchmark (thousands a second on
// the server's own 2 cores) node's http client would take more CPU than the server it measures.
// Options: url, headers, body, rate (per second), seconds, maxConnections (default 256; a request due while every
// connection waits for an answer opens a new one, up to this, else waits for the first free one, still timed from its
// due moment). Prints one JSON line, in open-loop.mjs's shape.
import net from 'node:net';

const options = JSON.parse(process.argv[2] ?? '{}');
if (typeof options.url !== 'string' || !(options.rate > 0) || !(options.seconds > 0)) {
  console.error('usage: node scripts/bench/open-loop-sockets.mjs \'{"url":"http://127.0.0.1:8080/event","body":"{}","rate":5000,"seconds":10}\'');
  process.exit(2);
}
const { url, headers = {}, body = '', rate, seconds, maxConnections = 256 } = options;
const target = new URL(url);
const payload = Buffer.from(body);
const request = Buffer.concat([
  Buffer.from(
    `POST ${target.pathname}${target.search} HTTP/1.1\r\nHost: ${target.host}\r\n` +
      Object.entries(headers)
        .map(([name, value]) => `${name}: ${value}\r\n`)
        .join('') +
      `Content-Length: ${payload.length}\r\n\r\n`,
  ),
  payload,
]);

const total = Math.round(rate * seconds);
const intervalMs = 1000 / rate;
const latencies = new Float64Array(total);
const sendLag = new Float64Array(total);
let completed = 0;
let non2xx = 0;
let errors = 0;
let lastAnswerAt = 0;
const statusCodes = {};
/** Connections without a request in flight. */
const idle = [];
/** Requests due while every connection was busy and no new one could be opened: their indexes, in order. */
const backlog = [];
let open = 0;

let finish;
const finished = new Promise((resolve) => (finish = resolve));
const done = () => {
  completed += 1;
  if (completed === total) finish();
};
const dueOf = (index) => started + index * intervalMs;

/** One keep-alive connection that carries one request at a time and reads its answer by Content-Length. */
function connect() {
  open += 1;
  const socket = net.connect({ host: target.hostname, port: Number(target.port), noDelay: true });
  const state = { socket, index: -1, buffered: undefined };
  socket.on('data', (chunk) => {
    const data = state.buffered === undefined ? chunk : Buffer.concat([state.buffered, chunk]);
    const headEnd = data.indexOf('\r\n\r\n');
    if (headEnd === -1) {
      state.buffered = data;
      return;
    }
    const head = data.toString('latin1', 0, headEnd);
    const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
    if (data.length < headEnd + 4 + length) {
      state.buffered = data;
      return;
    }
    state.buffered = undefined;
    const status = Number(head.slice(9, 12));
    const now = performance.now();
    latencies[state.index] = now - dueOf(state.index);
    lastAnswerAt = now;
    statusCodes[status] = (statusCodes[status] ?? 0) + 1;
    if (status < 200 || status >= 300) non2xx += 1;
    state.index = -1;
    done();
    release(state);
  });
  socket.on('error', () => undefined);
  socket.on('close', () => {
    open -= 1;
    const at = idle.indexOf(state);
    if (at !== -1) idle.splice(at, 1);
    if (state.index !== -1) {
      latencies[state.index] = performance.now() - dueOf(state.index);
      errors += 1;
      state.index = -1;
      done();
    }
  });
  return state;
}

function release(state) {
  const waiting = backlog.shift();
  if (waiting !== undefined) sendOn(state, waiting);
  else idle.push(state);
}

function sendOn(state, index) {
  state.index = index;
  sendLag[index] = performance.now() - dueOf(index);
  state.socket.write(request);
}

function send(index) {
  const state = idle.pop() ?? (open < maxConnections ? connect() : undefined);
  if (state === undefined) backlog.push(index);
  else sendOn(state, index);
}

const started = performance.now();
let next = 0;
// Every tick sends all requests due by now (several when a tick comes late: they are still timed from their due moment).
function tick() {
  const now = performance.now();
  while (next < total && dueOf(next) <= now) {
    send(next);
    next += 1;
  }
  if (next < total) {
    const wait = dueOf(next) - performance.now();
    if (wait > 1) setTimeout(tick, Math.min(wait - 0.5, 50));
    else setImmediate(tick);
  }
}
tick();
const timeout = setTimeout(() => {
  // Whatever is still unanswered long after the end counts as an error, at its time so far.
  for (let i = 0; i < total; i++) if (latencies[i] === 0) latencies[i] = performance.now() - dueOf(i);
  errors += total - completed;
  finish();
}, (seconds + 30) * 1000);
await finished;
clearTimeout(timeout);
for (const state of idle) state.socket.destroy();

const sorted = Array.from(latencies).sort((a, b) => a - b);
const lags = Array.from(sendLag).sort((a, b) => a - b);
const at = (values, p) => values[Math.min(values.length - 1, Math.max(0, Math.ceil((p / 100) * values.length) - 1))];
const round = (value) => Math.round(value * 1000) / 1000;
const elapsedSeconds = (lastAnswerAt - started) / 1000;
process.stdout.write(
  `${JSON.stringify({
    title: options.title ?? '',
    rate,
    seconds,
    total,
    answered: total - errors,
    achievedPerSecond: (total - errors) / Math.max(elapsedSeconds, seconds),
    connections: open,
    latency: { p50: round(at(sorted, 50)), p90: round(at(sorted, 90)), p99: round(at(sorted, 99)), p999: round(at(sorted, 99.9)), max: round(sorted[sorted.length - 1]) },
    // How late this generator itself sent requests (a busy machine): included in the latencies above.
    sendLag: { p50: round(at(lags, 50)), p99: round(at(lags, 99)), max: round(lags[lags.length - 1]) },
    non2xx,
    errors,
    statusCodes,
  })}\n`,
);
process.exit(0);
