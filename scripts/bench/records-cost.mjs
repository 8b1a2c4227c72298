// Issue 24: the CPU a pdp spends per decision record, apart from the HTTP benchmark's noise. The pdp's own record
// publisher (apps/pdp-service/dist/decision-records) against the NATS of NATS_URL (default nats://127.0.0.1:4222,
// JetStream on): 200,000 records a round, handed to the buffer 500 at a time (as answers would) and published
// batch by batch, the process's CPU time (user + system, all threads) divided by the records. A stream of its own
// under a unique prefix, deleted at the end. Run after a build: `node scripts/bench/records-cost.mjs`.
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(path.join(root, 'apps', 'pdp-service', 'package.json'));
const { connect } = require('nats');
const { startDecisionRecords } = require('./dist/decision-records/publisher.js');
const { createPdpMetrics } = require('./dist/metrics.js');

const RECORDS = 200_000;
const BATCH = 500;
const nc = await connect({ servers: process.env.NATS_URL ?? 'nats://127.0.0.1:4222' });
const metrics = createPdpMetrics(false);
const prefix = `records_cost_${process.pid}`;
const config = { enabled: true, maxAgeSeconds: 600, maxBytes: 64 * 1024 * 1024, bufferSize: 10_000, flushMs: 200, batchSize: BATCH };
const records = await startDecisionRecords({
  nc,
  prefix,
  config,
  replicaId: 'records-cost',
  logger: { warn: (fields, message) => console.warn(message, fields) },
  counter: metrics.decisionRecords,
  parametersOf: () => undefined,
  hash: () => '',
});
// A decision like the HTTP benchmark's: one policy matched, one modifier.
const decision = { allowed: true, decided: true, modifiers: [{}], delayMs: 0, executions: [], matchedPolicies: ['urn:policy:bench:p0'], errors: [] };
const event = { action: 'urn:action:bench:a0', timestamp: Date.now(), parameters: new Map([['user', { id: 'u1' }]]) };
const recordOf = (n) => {
  const uuid = `0190f1a2-0000-7000-8000-${String(n).padStart(12, '0')}`;
  return { decisionId: `urn:decision:${uuid}`, requestId: uuid, clientId: 'bench', action: event.action, solution: 'bench', revision: 1000, decision, latencyUs: 120, explain: false };
};
const cpuUs = (usage) => usage.user + usage.system;
for (let round = 1; round <= 3; round++) {
  const started = process.cpuUsage();
  let adding = 0;
  for (let n = 0; n < RECORDS; n += BATCH) {
    const before = process.cpuUsage();
    for (let i = 0; i < BATCH; i++) records.add(recordOf(n + i), event);
    adding += cpuUs(process.cpuUsage(before));
    await records.flush();
  }
  const all = cpuUs(process.cpuUsage(started));
  console.log(`round ${round}: ${(all / RECORDS).toFixed(2)} µs CPU per record in all; the add on the answer's path ${(adding / RECORDS).toFixed(3)} µs (with making the record)`);
}
const jsm = await nc.jetstreamManager();
const { state } = await jsm.streams.info(`${prefix}_decision_records`);
const counted = Object.fromEntries((await metrics.decisionRecords.get()).values.map((value) => [value.labels.outcome, value.value]));
console.log(`published ${counted.published ?? 0}, dropped ${counted.dropped ?? 0}, failed ${counted.failed ?? 0}; ${(state.bytes / state.messages).toFixed(0)} bytes per record in the stream`);
await records.close();
await jsm.streams.delete(`${prefix}_decision_records`);
await nc.drain();
