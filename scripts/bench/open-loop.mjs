// An open-loop load generator as its own process: `node scripts/bench/open-loop.mjs '<options as JSON>'`.
// Sends requests at a fixed rate whatever the answers do: request i is due at start + i / rate, and its latency is
// counted from that due moment to its answer, so time spent queued anywhere — in the server, in a pool, behind an
// earlier request, or in this generator when it falls behind — is counted (no coordinated omission). A closed-loop
// client (autocannon, even with a rate) waits for an answer before the next request of a connection, so a slow
// answer delays the requests behind it and they are never timed as late.
// Options: urls (requests go round-robin over them), headers, bodies (cycled), rate (per second, over all urls),
// seconds, timeoutMs, expect ('allowed': a 200 must say eventAllowed true). Prints one JSON line.
// Started by history.mjs; not a benchmark of its own.
import http from 'node:http';

const options = JSON.parse(process.argv[2] ?? '{}');
if (!Array.isArray(options.urls) || options.urls.length === 0 || !(options.rate > 0) || !(options.seconds > 0)) {
  console.error('usage: node scripts/bench/open-loop.mjs \'{"urls":["http://127.0.0.1:8080/event"],"bodies":["{}"],"rate":1000,"seconds":10}\'');
  process.exit(2);
}
const { urls, headers = {}, bodies = [''], rate, seconds, timeoutMs = 10_000, expect } = options;

// No limit on sockets: a request whose turn has come is sent at once on a new connection when every open one is
// busy, instead of queueing in the agent (which would be a closed loop again).
const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity, maxFreeSockets: 1024 });
const payloads = bodies.map((body) => Buffer.from(body));
const targets = urls.map((url) => new URL(url));

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

function send(index, due) {
  const target = targets[index % targets.length];
  const payload = payloads[index % payloads.length];
  sendLag[index] = performance.now() - due;
  const req = http.request(
    { host: target.hostname, port: target.port, path: target.pathname, method: 'POST', agent, headers: { ...headers, 'Content-Length': payload.length } },
    (res) => {
      const chunks = [];
      res.on('data', (chunk) => chunks.push(chunk));
      res.on('end', () => {
        const now = performance.now();
        latencies[index] = now - due;
        lastAnswerAt = now;
        answered += 1;
        statusCodes[res.statusCode] = (statusCodes[res.statusCode] ?? 0) + 1;
        if (res.statusCode < 200 || res.statusCode >= 300) non2xx += 1;
        else if (expect === 'allowed') {
          try {
            if (JSON.parse(Buffer.concat(chunks).toString('utf8')).eventAllowed !== true) unexpected += 1;
          } catch {
            unexpected += 1;
          }
        }
        done();
      });
      res.on('error', fail(index, due));
    },
  );
  req.setTimeout(timeoutMs, () => req.destroy(new Error('timeout')));
  req.on('error', fail(index, due));
  req.end(payload);
}

function fail(index, due) {
  let counted = false;
  return () => {
    if (counted) return;
    counted = true;
    latencies[index] = performance.now() - due;
    errors += 1;
    done();
  };
}

let finish;
const finished = new Promise((resolve) => (finish = resolve));
function done() {
  completed += 1;
  if (completed === total) finish();
}

const started = performance.now();
let next = 0;
// Every tick sends all requests due by now (several when a tick comes late: they are still timed from their due moment).
function tick() {
  const now = performance.now();
  while (next < total && started + next * intervalMs <= now) {
    send(next, started + next * intervalMs);
    next += 1;
  }
  if (next < total) {
    const wait = started + next * intervalMs - performance.now();
    if (wait > 1) setTimeout(tick, Math.min(wait - 0.5, 50));
    else setImmediate(tick);
  }
}
tick();
await finished;
agent.destroy();

const sorted = Array.from(latencies).sort((a, b) => a - b);
const lags = Array.from(sendLag).sort((a, b) => a - b);
const at = (values, p) => values[Math.min(values.length - 1, Math.max(0, Math.ceil((p / 100) * values.length) - 1))];
const round = (value) => Math.round(value * 100) / 100;
const elapsedSeconds = (lastAnswerAt - started) / 1000;
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
    non2xx,
    errors,
    unexpected,
    statusCodes,
  })}\n`,
);
process.exit(0);
