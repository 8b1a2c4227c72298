import { readChoice, readInteger, type Env } from '@custos/service-kit';

/** Decision records on the JetStream stream (issue 24; README "Configuration", docs/api.md "Decision records"). */
export interface DecisionRecordsConfig {
  /** `PDP_DECISION_RECORDS` (`off` by default: a record costs the pdp ~15 µs of CPU per decision, BENCHMARKS.md): publish records at all. */
  enabled: boolean;
  /** `PDP_DECISION_RECORDS_MAX_AGE_S`: how long the stream keeps a record (default 7 days). */
  maxAgeSeconds: number;
  /** `PDP_DECISION_RECORDS_MAX_BYTES`: the stream's size bound; the oldest records go first (default 1 GiB). */
  maxBytes: number;
  /** `PDP_DECISION_RECORDS_BUFFER`: records waiting to be published; past it a record is dropped and counted. */
  bufferSize: number;
  /** `PDP_DECISION_RECORDS_FLUSH_MS`: how long a record waits at most before its batch is published. */
  flushMs: number;
  /** `PDP_DECISION_RECORDS_BATCH`: a batch this large is published at once, without waiting for `flushMs`. */
  batchSize: number;
}

export function readDecisionRecordsConfig(env: Env): DecisionRecordsConfig {
  return {
    enabled: readChoice(env, 'PDP_DECISION_RECORDS', ['on', 'off'] as const, 'off') === 'on',
    maxAgeSeconds: readInteger(env, 'PDP_DECISION_RECORDS_MAX_AGE_S', 7 * 24 * 3600, 1, 10 * 365 * 24 * 3600),
    maxBytes: readInteger(env, 'PDP_DECISION_RECORDS_MAX_BYTES', 1024 ** 3, 1024 * 1024, Number.MAX_SAFE_INTEGER),
    bufferSize: readInteger(env, 'PDP_DECISION_RECORDS_BUFFER', 10_000, 1, 10_000_000),
    flushMs: readInteger(env, 'PDP_DECISION_RECORDS_FLUSH_MS', 200, 1, 60_000),
    batchSize: readInteger(env, 'PDP_DECISION_RECORDS_BATCH', 500, 1, 100_000),
  };
}
