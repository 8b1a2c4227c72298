import { nanos, type NatsConnection } from 'nats';
import { decisionRecordSubjects } from '@custos/contracts';
import { ensureStream } from '@custos/service-kit';
import type { DecisionRecordsConfig } from './config';

/**
 * Creates the stream of decision records, or brings an existing one to this pdp's bounds (age and size; the oldest
 * records are discarded first). Every pdp of a stack does this at its start, with the same settings in a sane
 * deployment; the last one to start wins when they differ.
 */
export async function ensureDecisionRecordStream(nc: NatsConnection, prefix: string, config: DecisionRecordsConfig): Promise<void> {
  const subjects = decisionRecordSubjects(prefix);
  await ensureStream(nc, subjects.stream, () => ({ subjects: [subjects.all], max_age: nanos(config.maxAgeSeconds * 1000), max_bytes: config.maxBytes }));
}
