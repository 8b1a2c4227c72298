import { nanos, type NatsConnection } from 'nats';
import { policySubjects } from '@custos/contracts';
import { ensureStream } from '@custos/service-kit';

export interface StreamSettings {
  /** How long changes stay in the stream. */
  maxAgeMs: number;
  /** Window in which a repeated msgID is dropped as a duplicate. */
  duplicateWindowMs: number;
  /**
   * Copies of the stream in a NATS cluster (`NATS_STREAM_REPLICAS`). Unset: as many as the cluster has servers, at
   * most 3 (a single server: 1), and an existing stream is only ever grown to that, never shrunk (an operator may
   * have set more). Set: exactly that many, an existing stream brought to it.
   */
  replicas?: number;
}

export const DEFAULT_STREAM_SETTINGS: StreamSettings = {
  maxAgeMs: 7 * 24 * 60 * 60 * 1000,
  duplicateWindowMs: 2 * 60 * 1000,
};

/** Three copies survive the loss of any one server with a quorum left; more only slow every write down. */
const MAX_DEFAULT_REPLICAS = 3;

/**
 * How many servers the connected NATS has: 1 without a cluster, else the client URLs the server advertises for its
 * cluster (`connect_urls`, which include its own).
 */
export function clusterSize(info: { cluster?: string; connect_urls?: string[] } | undefined): number {
  if (info?.cluster === undefined || info.cluster === '') return 1;
  return Math.max(new Set(info.connect_urls ?? []).size, 1);
}

/**
 * Creates the JetStream stream that captures the change subject, or brings an existing one to
 * these settings (limits retention, file storage, replicas). In a cluster of three or more, three replicas: the
 * stream (and pap's acknowledged changes in it) survives the loss of its leader, whose followers elect a new one.
 */
export async function ensurePolicyStream(
  nc: NatsConnection,
  prefix: string,
  settings: StreamSettings = DEFAULT_STREAM_SETTINGS,
): Promise<void> {
  const subjects = policySubjects(prefix);
  const derived = Math.min(MAX_DEFAULT_REPLICAS, clusterSize(nc.info));
  await ensureStream(nc, subjects.stream, (current) => ({
    subjects: [subjects.changes],
    max_age: nanos(settings.maxAgeMs),
    duplicate_window: nanos(settings.duplicateWindowMs),
    num_replicas: settings.replicas ?? (current === undefined ? derived : Math.max(current.num_replicas, derived)),
  }));
}
