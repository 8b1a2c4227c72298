/**
 * Propagation of the deployed policy set from pap to pdp replicas (architecture.md §2).
 * Everything lives under a prefix so several stacks can share one NATS server.
 */
export interface PolicySubjects {
  /** JetStream stream that stores every change; pap publishes with msgID = revision. */
  stream: string;
  /** Subject of change messages (PolicyChange). */
  changes: string;
  /** Request subject for a full snapshot; the answer comes as SnapshotChunk messages on the reply inbox. */
  snapshot: string;
}

export function policySubjects(prefix: string): PolicySubjects {
  return {
    stream: `${prefix.replace(/[^A-Za-z0-9_-]/g, '_')}_policy_changes`,
    changes: `${prefix}.policy.changes`,
    snapshot: `${prefix}.policy.snapshot`,
  };
}

export interface DeployedPolicy {
  id: string;
  xml: string;
}

/**
 * One change of the deployed set at `revision` (gap-free, strictly increasing).
 * `resync` is sent instead of `deploy` when the policy is too large for one message:
 * receivers then fetch a snapshot.
 */
export type PolicyChange =
  | { revision: number; type: 'deploy'; policy: DeployedPolicy }
  | { revision: number; type: 'revoke'; policyId: string }
  | { revision: number; type: 'resync' };

/** The whole deployed set at one revision. */
export interface PolicySnapshot {
  revision: number;
  policies: DeployedPolicy[];
}

/**
 * A snapshot travels as the UTF-8 JSON of a PolicySnapshot, cut into byte chunks, each carried as
 * base64 in `data` (a cut may fall inside a character); the sender sizes the raw chunks so that a
 * chunk still fits the server's max payload after base64 encoding. Receivers join them whatever their size;
 * `index` counts from 0 and `last` marks the final chunk. Chunks go to the request's reply inbox.
 */
export interface SnapshotChunk {
  index: number;
  last: boolean;
  data: string;
}

/** Body of a snapshot request; `requester` names the replica for pap's log. */
export interface SnapshotRequest {
  requester: string;
}
