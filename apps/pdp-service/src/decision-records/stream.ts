import { DiscardPolicy, nanos, RetentionPolicy, StorageType, type NatsConnection, type NatsError } from 'nats';
import { decisionRecordSubjects } from '@custos/contracts';
import type { DecisionRecordsConfig } from './config';

const STREAM_NOT_FOUND = 10059;

/**
 * Creates the stream of decision records, or brings an existing one to this pdp's bounds (age and size; the oldest
 * records are discarded first). Every pdp of a stack does this at its start, with the same settings in a sane
 * deployment; the last one to start wins when they differ.
 */
export async function ensureDecisionRecordStream(nc: NatsConnection, prefix: string, config: DecisionRecordsConfig): Promise<void> {
  const subjects = decisionRecordSubjects(prefix);
  const jsm = await nc.jetstreamManager();
  const wanted = { subjects: [subjects.all], max_age: nanos(config.maxAgeSeconds * 1000), max_bytes: config.maxBytes };
  try {
    const { config: current } = await jsm.streams.info(subjects.stream);
    const same =
      current.subjects.length === 1 && current.subjects[0] === subjects.all && current.max_age === wanted.max_age && current.max_bytes === wanted.max_bytes;
    if (!same) await jsm.streams.update(subjects.stream, wanted);
  } catch (error) {
    if ((error as NatsError).api_error?.err_code !== STREAM_NOT_FOUND) throw error;
    await jsm.streams.add({
      name: subjects.stream,
      ...wanted,
      retention: RetentionPolicy.Limits,
      storage: StorageType.File,
      discard: DiscardPolicy.Old,
    });
  }
}
