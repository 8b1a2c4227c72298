/** Milliseconds since the epoch; injected so tests can move time. */
export type Clock = () => number;

export interface FailureLimiterOptions {
  /** Failures allowed per key within one window; the next attempt is refused until the window ends. */
  limit?: number;
  windowMs?: number;
  /** Keys remembered at most; beyond this, expired keys are swept and then the oldest dropped. */
  maxKeys?: number;
  clock?: Clock;
}

interface Window {
  startedAt: number;
  failures: number;
}

/**
 * Counts failed attempts per key (a client id, a source address) in memory. A window opens with
 * the first failure and lasts `windowMs`; once it holds `limit` failures, every attempt for that
 * key is refused until it closes. Per process: replicas count separately.
 */
export class FailureLimiter {
  readonly limit: number;
  readonly windowMs: number;
  private readonly maxKeys: number;
  private readonly clock: Clock;
  private readonly windows = new Map<string, Window>();

  constructor(options: FailureLimiterOptions = {}) {
    this.limit = options.limit ?? 10;
    this.windowMs = options.windowMs ?? 60_000;
    this.maxKeys = options.maxKeys ?? 100_000;
    this.clock = options.clock ?? Date.now;
    if (!(this.limit >= 1) || !(this.windowMs >= 1) || !(this.maxKeys >= 1)) throw new Error('limiter bounds must be positive');
  }

  /** Seconds until `key` may try again, or undefined when it may try now. */
  retryAfter(key: string): number | undefined {
    const window = this.current(key);
    if (!window || window.failures < this.limit) return undefined;
    return Math.max(1, Math.ceil((window.startedAt + this.windowMs - this.clock()) / 1000));
  }

  /** Records one failed attempt of `key`. */
  fail(key: string): void {
    const window = this.current(key);
    if (window) {
      window.failures++;
      return;
    }
    if (this.windows.size >= this.maxKeys) this.makeRoom();
    this.windows.set(key, { startedAt: this.clock(), failures: 1 });
  }

  /**
   * Takes back one failure of `key`. An attempt is counted as failed before its credentials are
   * checked and forgiven when they were right, so parallel attempts cannot slip past the limit.
   */
  forgive(key: string): void {
    const window = this.current(key);
    if (window && window.failures > 0) window.failures--;
  }

  /** How many keys are remembered (for tests and metrics). */
  get size(): number {
    return this.windows.size;
  }

  private current(key: string): Window | undefined {
    const window = this.windows.get(key);
    if (!window) return undefined;
    if (this.clock() - window.startedAt >= this.windowMs) {
      this.windows.delete(key);
      return undefined;
    }
    return window;
  }

  private makeRoom(): void {
    const now = this.clock();
    for (const [key, window] of this.windows) if (now - window.startedAt >= this.windowMs) this.windows.delete(key);
    // Still full: forget the oldest windows (Map keeps insertion order), a tenth at a time.
    if (this.windows.size >= this.maxKeys) {
      let drop = Math.max(1, Math.floor(this.maxKeys / 10));
      for (const key of this.windows.keys()) {
        if (drop-- <= 0) break;
        this.windows.delete(key);
      }
    }
  }
}
