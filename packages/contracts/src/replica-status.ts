/**
 * What every pdp replica tells pap about itself over NATS, so pap can show every replica's active revision
 * (the console's replicas page, and whether a deploy has reached them all). Plain NATS, not JetStream: a missed
 * report is replaced by the next one.
 */
export interface ReplicaStatusReport {
  /** PDP_REPLICA_ID. */
  replica: string;
  /** true once the first snapshot is active. */
  ready: boolean;
  /** Revision of the active policy set; null before the first snapshot. */
  revision: number | null;
  /** Arrival to application of the last applied change message, in ms; null before the first one. */
  lagMs: number | null;
  /** Change messages received and not applied yet. */
  pendingChanges: number;
  natsConnected: boolean;
  /** When the replica sent this report (ISO 8601). */
  sentAt: string;
}

/** Subject of the reports, under the stack's prefix. */
export const replicaStatusSubject = (prefix: string): string => `${prefix}.pdp.status`;

/** A replica reports at least this often, and at once when its revision or readiness changes. */
export const REPLICA_STATUS_INTERVAL_MS = 2000;
