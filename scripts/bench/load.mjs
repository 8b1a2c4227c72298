// The load generator as its own process: `node scripts/bench/load.mjs '<autocannon options as JSON>'`.
// Runs autocannon's programmatic API and prints one JSON line with the figures the benchmarks use.
// Started by lib.mjs#runLoad; not a benchmark of its own.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const autocannon = require('autocannon');

const options = JSON.parse(process.argv[2] ?? '{}');
if (!options.url) {
  console.error('usage: node scripts/bench/load.mjs \'{"url":"http://127.0.0.1:8080/event", ...}\'');
  process.exit(2);
}

const instance = autocannon({ connections: 50, pipelining: 1, duration: 10, timeout: 10, ...options });
// autocannon stops by itself after `duration`; a signal ends it early with the figures so far.
for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => instance.stop());

const result = await instance;
const latency = result.latency;
const summary = {
  title: options.title ?? '',
  url: options.url,
  connections: result.connections,
  seconds: result.duration,
  total: result.requests.total,
  sent: result.requests.sent,
  requestsPerSecond: result.requests.total / result.duration,
  latency: { mean: latency.average, p50: latency.p50, p90: latency.p90, p99: latency.p99, p999: latency.p99_9, max: latency.max },
  errors: result.errors,
  timeouts: result.timeouts,
  non2xx: result.non2xx,
  resets: result.resets,
  mismatches: result.mismatches,
  statusCodes: result.statusCodeStats,
  throughputBytesPerSecond: result.throughput.average,
};
process.stdout.write(`${JSON.stringify(summary)}\n`);
