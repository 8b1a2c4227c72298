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

/**
 * How long ago `at` was, for people: `just now`, `42 s ago`, `3 min ago`, `1 h 5 min ago`. A time after `now` (the
 * browser's clock behind pap's) reads as just now.
 */
export function agoOf(at: string, now: number): string {
  const seconds = Math.floor((now - Date.parse(at)) / 1000);
  if (!Number.isFinite(seconds) || seconds < 5) return 'just now';
  if (seconds < 60) return `${seconds} s ago`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.floor(minutes / 60);
  return minutes % 60 === 0 ? `${hours} h ago` : `${hours} h ${minutes % 60} min ago`;
}
