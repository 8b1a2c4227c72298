import type { Pool } from 'pg';

/** Milliseconds since the epoch; injected so tests can move time. */
export type Clock = () => number;

export interface FailureLimiterOptions {
  windowMs?: number;
  clock?: Clock;
}

/**
 * One counter of an attempt and the failures it allows within a window: once it holds `limit`, every attempt
 * that names it is refused until the window ends. `limit: Infinity` only counts (up to `COUNT_CAP`) and never
 * refuses.
 */
export interface LimitedKey {
  key: string;
  limit: number;
}

/** Where a counter that never refuses stops counting; far past any limit, inside PostgreSQL's integer. */
export const COUNT_CAP = 2_000_000_000;

export type Attempt =
  | { admitted: true; /** Failures per key within its window, this attempt included. */ failures: ReadonlyMap<string, number> }
  | { admitted: false; retryAfterSeconds: number };

const capOf = (limit: number): number => (Number.isFinite(limit) ? limit : COUNT_CAP);

/** The keys once each (the lowest limit wins when a key is named twice). */
function distinct(keys: readonly LimitedKey[]): LimitedKey[] {
  const byKey = new Map<string, number>();
  for (const { key, limit } of keys) byKey.set(key, Math.min(limit, byKey.get(key) ?? Infinity));
  return [...byKey].map(([key, limit]) => ({ key, limit }));
}

/**
 * Counts failed attempts per key (`pair:`, `source:`, `client:` digests) in `auth.failure_windows`, shared by
 * every auth replica, so N replicas allow no more guesses than one. A window opens with the first failure and
 * lasts `windowMs`; once a key holds its limit, every attempt naming it is refused until the window closes.
 * Each step is one atomic statement, so concurrent attempts on any replica cannot slip past.
 */
export class FailureLimiter {
  readonly windowMs: number;
  private readonly clock: Clock;
  private nextCleanupAt = 0;

  constructor(
    private readonly pool: Pool,
    options: FailureLimiterOptions = {},
  ) {
    this.windowMs = options.windowMs ?? 60_000;
    this.clock = options.clock ?? Date.now;
    if (!(this.windowMs >= 1)) throw new Error('limiter window must be positive');
  }

  /**
   * Counts one attempt of every key as failed, unless one of them has reached its limit: then nothing is
   * counted and the answer is the seconds until all may try again. An attempt is counted before its
   * credentials are checked and forgiven when they were right, so parallel attempts cannot pass together.
   */
  async attempt(keys: readonly LimitedKey[]): Promise<Attempt> {
    const now = this.clock();
    await this.cleanupWhenDue(now);
    const wanted = distinct(keys);
    if (wanted.some(({ limit }) => !(limit >= 1))) throw new Error('limits must be positive');
    const counted = await this.pool.query<{ key: string; failures: number }>(
      `WITH wanted AS (SELECT * FROM unnest($1::text[], $4::int[]) AS k(key, cap))
       INSERT INTO auth.failure_windows AS w (key, expires_at_ms, failures)
       SELECT key, $2::bigint + $3::bigint, 1 FROM wanted
       ON CONFLICT (key) DO UPDATE
          SET expires_at_ms = CASE WHEN w.expires_at_ms <= $2 THEN EXCLUDED.expires_at_ms ELSE w.expires_at_ms END,
              failures = CASE WHEN w.expires_at_ms <= $2 THEN 1 ELSE w.failures + 1 END
        WHERE w.expires_at_ms <= $2 OR w.failures < (SELECT cap FROM wanted WHERE wanted.key = w.key)
       RETURNING key, failures`,
      [wanted.map(({ key }) => key), now, this.windowMs, wanted.map(({ limit }) => capOf(limit))],
    );
    const failures = new Map(counted.rows.map((row) => [row.key, row.failures]));
    // A counter that only counts and sits at its cap is not counted again, but it refuses nothing.
    const refused = wanted.filter(({ key, limit }) => !failures.has(key) && Number.isFinite(limit));
    if (refused.length === 0) {
      for (const { key } of wanted) if (!failures.has(key)) failures.set(key, COUNT_CAP);
      return { admitted: true, failures };
    }
    // Some key is at its limit: take back what this attempt counted on the others.
    await this.forgive([...failures.keys()]);
    return { admitted: false, retryAfterSeconds: (await this.retryAfter(refused)) ?? 1 };
  }

  /** Seconds until every one of `keys` is below its limit, or undefined when all are now. */
  async retryAfter(keys: readonly LimitedKey[]): Promise<number | undefined> {
    const now = this.clock();
    const limited = distinct(keys).filter(({ limit }) => Number.isFinite(limit));
    const result = await this.pool.query<{ until: string | null }>(
      `SELECT max(w.expires_at_ms) AS until
         FROM auth.failure_windows w JOIN unnest($1::text[], $3::int[]) AS k(key, cap) ON k.key = w.key
        WHERE w.expires_at_ms > $2 AND w.failures >= k.cap`,
      [limited.map(({ key }) => key), now, limited.map(({ limit }) => limit)],
    );
    const until = result.rows[0]?.until;
    if (until === null || until === undefined) return undefined;
    return Math.max(1, Math.ceil((Number(until) - now) / 1000));
  }

  /** Takes back one failure of each key (never below zero). */
  async forgive(keys: readonly string[]): Promise<void> {
    if (keys.length === 0) return;
    await this.pool.query(
      'UPDATE auth.failure_windows SET failures = failures - 1 WHERE key = ANY($1::text[]) AND expires_at_ms > $2 AND failures > 0',
      [[...new Set(keys)], this.clock()],
    );
  }

  /** Deletes the windows that have ended; done by each replica at most once per window length. */
  async cleanup(now = this.clock()): Promise<number> {
    this.nextCleanupAt = now + this.windowMs;
    const result = await this.pool.query('DELETE FROM auth.failure_windows WHERE expires_at_ms <= $1', [now]);
    return result.rowCount ?? 0;
  }

  private async cleanupWhenDue(now: number): Promise<void> {
    if (now >= this.nextCleanupAt) await this.cleanup(now);
  }
}
