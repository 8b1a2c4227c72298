import { DiscardPolicy, nanos, RetentionPolicy, StorageType, type NatsConnection, type NatsError } from 'nats';
import { policySubjects } from '@custos/contracts';

export interface StreamSettings {
  /** How long changes stay in the stream. */
  maxAgeMs: number;
  /** Window in which a repeated msgID is dropped as a duplicate. */
  duplicateWindowMs: number;
}

export const DEFAULT_STREAM_SETTINGS: StreamSettings = {
  maxAgeMs: 7 * 24 * 60 * 60 * 1000,
  duplicateWindowMs: 2 * 60 * 1000,
};

const STREAM_NOT_FOUND = 10059;

/**
 * Creates the JetStream stream that captures the change subject, or brings an existing one to
 * these settings (limits retention, file storage).
 */
export async function ensurePolicyStream(
  nc: NatsConnection,
  prefix: string,
  settings: StreamSettings = DEFAULT_STREAM_SETTINGS,
): Promise<void> {
  const subjects = policySubjects(prefix);
  const jsm = await nc.jetstreamManager();
  const wanted = {
    subjects: [subjects.changes],
    max_age: nanos(settings.maxAgeMs),
    duplicate_window: nanos(settings.duplicateWindowMs),
  };
  try {
    const info = await jsm.streams.info(subjects.stream);
    const config = info.config;
    const same =
      config.subjects.length === 1 &&
      config.subjects[0] === subjects.changes &&
      config.max_age === wanted.max_age &&
      config.duplicate_window === wanted.duplicate_window;
    if (!same) await jsm.streams.update(subjects.stream, wanted);
  } catch (error) {
    if ((error as NatsError).api_error?.err_code !== STREAM_NOT_FOUND) throw error;
    await jsm.streams.add({
      name: subjects.stream,
      ...wanted,
      retention: RetentionPolicy.Limits,
      storage: StorageType.File,
      discard: DiscardPolicy.Old,
      num_replicas: 1,
    });
  }
}
