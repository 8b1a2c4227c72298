import type { NatsConnection } from 'nats';
import { decisionRecordSubjects, type RecordParameters } from '@custos/contracts';
import type { Counter, Logger } from '@custos/service-kit';
import { DecisionRecordBuffer } from './buffer';
import type { DecisionRecordsConfig } from './config';
import { recordJson } from './encode';
import { ensureDecisionRecordStream } from './stream';

export interface DecisionRecordsDeps {
  nc: NatsConnection;
  prefix: string;
  config: DecisionRecordsConfig;
  replicaId: string;
  logger: Logger;
  /** `decision_records_total` by outcome: `published`, `dropped` (buffer full or closed), `failed` (NATS refused the batch). */
  counter: Counter<'outcome'>;
  /** The solution's `recordParameters` in the active set (undefined: none). */
  parametersOf(solution: string): RecordParameters | undefined;
  hash(name: string, value: unknown): string;
}

/**
 * Decision records on the stream: makes sure the stream exists with this pdp's bounds, then answers the buffer
 * the Decider hands every answered decision to. A batch is published as one message per record on the core
 * subjects (the stream captures them) and one flush: a round trip per batch, none per record, and nothing the answer
 * waits for. A record is thus published at most once: NATS out of reach for longer than the client buffers loses
 * records, which the stream then lacks — records are for reading back what was decided, not a ledger
 * (docs/api.md, "Decision records").
 */
export async function startDecisionRecords(deps: DecisionRecordsDeps): Promise<DecisionRecordBuffer> {
  const { nc, config, counter, logger } = deps;
  await ensureDecisionRecordStream(nc, deps.prefix, config);
  const subjects = decisionRecordSubjects(deps.prefix);
  const encoder = new TextEncoder();
  const encoding = { replicaId: deps.replicaId, parametersOf: deps.parametersOf, hash: deps.hash };
  let failures = 0;
  return new DecisionRecordBuffer({
    capacity: config.bufferSize,
    flushMs: config.flushMs,
    batchSize: config.batchSize,
    publish: async (batch) => {
      for (const { record, event, at } of batch) {
        nc.publish(subjects.subjectOf(record.solution, record.decisionId), encoder.encode(recordJson(record, event, at, encoding)));
      }
      await nc.flush();
    },
    onPublished: (count) => counter.inc({ outcome: 'published' }, count),
    onDropped: (count) => counter.inc({ outcome: 'dropped' }, count),
    onFailed: (error, count) => {
      counter.inc({ outcome: 'failed' }, count);
      // Said the first time and then every 100th, not for every batch while NATS is away.
      if (failures++ % 100 === 0) logger.warn({ err: error, records: count }, 'decision records could not be published');
    },
  });
}
