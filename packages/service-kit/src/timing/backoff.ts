/** Exponential backoff: `initialMs` after the first failure, doubled per failure, never above `maxMs`. */
export interface Backoff {
  initialMs: number;
  maxMs: number;
  /**
   * Spread, as a fraction: each delay is drawn from ±`jitter` around the exponential value (0.2 → 80 %–120 %), so
   * replicas that failed together do not retry together. Default 0 (exact).
   */
  jitter?: number;
}

/** Doublings stop here: 2^30 times any sensible `initialMs` is past every `maxMs` already. */
const MAX_DOUBLINGS = 30;

/** The pause after failure number `attempt` (from 1). */
export function backoffDelay({ initialMs, maxMs, jitter = 0 }: Backoff, attempt: number): number {
  const exponential = Math.min(initialMs * 2 ** Math.min(Math.max(attempt - 1, 0), MAX_DOUBLINGS), maxMs);
  if (jitter === 0) return exponential;
  return Math.round(exponential * (1 - jitter + Math.random() * 2 * jitter));
}
