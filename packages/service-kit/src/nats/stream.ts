import { DiscardPolicy, RetentionPolicy, StorageType, type NatsConnection, type NatsError, type StreamConfig } from 'nats';

const STREAM_NOT_FOUND = 10059;

/** The settings a service owns of its stream; every one it names is compared with the stream's and kept so. */
export type StreamBounds = Partial<StreamConfig> & { subjects: string[] };

/**
 * Creates a JetStream stream kept in files within limits (the oldest messages discarded first), or brings an existing
 * one to the bounds `wanted` gives for its current configuration (undefined when there is none yet). Nothing is sent
 * when every bound named is already so: a service calls this at every start.
 */
export async function ensureStream(nc: NatsConnection, name: string, wanted: (current: StreamConfig | undefined) => StreamBounds): Promise<void> {
  const jsm = await nc.jetstreamManager();
  try {
    const { config } = await jsm.streams.info(name);
    const bounds = wanted(config);
    const same = Object.entries(bounds).every(([key, value]) => sameSetting(config[key as keyof StreamConfig], value));
    if (!same) await jsm.streams.update(name, bounds);
  } catch (error) {
    if ((error as NatsError).api_error?.err_code !== STREAM_NOT_FOUND) throw error;
    await jsm.streams.add({
      name,
      ...wanted(undefined),
      retention: RetentionPolicy.Limits,
      storage: StorageType.File,
      discard: DiscardPolicy.Old,
    });
  }
}

function sameSetting(current: unknown, wanted: unknown): boolean {
  if (Array.isArray(wanted)) return Array.isArray(current) && current.length === wanted.length && wanted.every((item, i) => current[i] === item);
  return current === wanted;
}
