import { Type, type Static } from '@sinclair/typebox';

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

/** One replica as pap's `GET /ws/replicas` lists it: its last report, with how far it is behind pap. */
export const replicaListingSchema = Type.Object({
  replica: Type.String({ description: 'PDP_REPLICA_ID' }),
  ready: Type.Boolean(),
  revision: Type.Union([Type.Integer(), Type.Null()], { description: "revision of the replica's active set" }),
  lag: Type.Union([Type.Integer(), Type.Null()], { description: 'revisions behind pap' }),
  lagMs: Type.Union([Type.Integer(), Type.Null()], { description: 'arrival to application of its last applied change' }),
  pendingChanges: Type.Integer(),
  natsConnected: Type.Boolean(),
  lastSeenAt: Type.String({ format: 'date-time', description: 'when pap received its last report' }),
  stale: Type.Boolean({ description: 'silent for over three report intervals' }),
});
export type ReplicaListing = Static<typeof replicaListingSchema>;

/** The answer of `GET /ws/replicas`: pap's revision and every replica it has heard from. */
export const replicasAnswerSchema = Type.Object({ revision: Type.Integer(), replicas: Type.Array(replicaListingSchema) });
export type ReplicasAnswer = Static<typeof replicasAnswerSchema>;
