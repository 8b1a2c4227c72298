import type { Pool } from 'pg';

/** Milliseconds since the epoch; injected so tests can move time. */
export type Clock = () => number;

export interface FailureLimiterOptions {
  /** Failures allowed per key within one window; the next attempt is refused until the window ends. */
  limit?: number;
  windowMs?: number;
  clock?: Clock;
}

/**
 * Counts failed attempts per key (`client:<id>`, `source:<address>`) in `auth.failure_windows`, shared by
 * every auth replica, so N replicas allow no more guesses than one. A window opens with the first failure
 * and lasts `windowMs`; once it holds `limit` failures, every attempt for that key is refused until it
 * closes. Each step is one atomic statement, so concurrent attempts on any replica cannot slip past.
 */
export class FailureLimiter {
  readonly limit: number;
  readonly windowMs: number;
  private readonly clock: Clock;
  private nextCleanupAt = 0;

  constructor(
    private readonly pool: Pool,
    options: FailureLimiterOptions = {},
  ) {
    this.limit = options.limit ?? 10;
    this.windowMs = options.windowMs ?? 60_000;
    this.clock = options.clock ?? Date.now;
    if (!(this.limit >= 1) || !(this.windowMs >= 1)) throw new Error('limiter bounds must be positive');
  }

  /**
   * Counts one attempt of every key as failed, unless one of them has reached its limit: then nothing
   * is counted and the answer is the seconds until all may try again. An attempt is counted before its
   * credentials are checked and forgiven when they were right, so parallel attempts cannot pass together.
   */
  async attempt(keys: readonly string[]): Promise<{ admitted: true } | { admitted: false; retryAfterSeconds: number }> {
    const now = this.clock();
    await this.cleanupWhenDue(now);
    const counted = await this.pool.query<{ key: string }>(
      `INSERT INTO auth.failure_windows AS w (key, expires_at_ms, failures)
       SELECT key, $2::bigint + $3::bigint, 1 FROM unnest($1::text[]) AS key
       ON CONFLICT (key) DO UPDATE
          SET expires_at_ms = CASE WHEN w.expires_at_ms <= $2 THEN EXCLUDED.expires_at_ms ELSE w.expires_at_ms END,
              failures = CASE WHEN w.expires_at_ms <= $2 THEN 1 ELSE w.failures + 1 END
        WHERE w.expires_at_ms <= $2 OR w.failures < $4
       RETURNING key`,
      [[...new Set(keys)], now, this.windowMs, this.limit],
    );
    if (counted.rowCount === new Set(keys).size) return { admitted: true };
    // Some key is at its limit: take back what this attempt counted on the others.
    await this.forgive(counted.rows.map((row) => row.key));
    return { admitted: false, retryAfterSeconds: (await this.retryAfter(keys)) ?? 1 };
  }

  /** Seconds until every one of `keys` may try again, or undefined when all may try now. */
  async retryAfter(keys: readonly string[]): Promise<number | undefined> {
    const now = this.clock();
    const result = await this.pool.query<{ until: string | null }>(
      'SELECT max(expires_at_ms) AS until FROM auth.failure_windows WHERE key = ANY($1::text[]) AND expires_at_ms > $2 AND failures >= $3',
      [[...keys], now, this.limit],
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
      [[...keys], this.clock()],
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
