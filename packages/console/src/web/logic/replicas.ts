import type { ReplicaView } from './api';

/** Whether every live replica has applied `revision` (and there is at least one to ask). */
export function everyReplicaHas(replicas: readonly ReplicaView[], revision: number): boolean {
  const live = replicas.filter((r) => !r.stale);
  return live.length > 0 && live.every((r) => r.revision !== null && r.revision >= revision);
}

/** Replicas still behind `revision`, by name, for the "waiting for" line. */
export function replicasBehind(replicas: readonly ReplicaView[], revision: number): string[] {
  return replicas.filter((r) => !r.stale && (r.revision === null || r.revision < revision)).map((r) => r.replica);
}
