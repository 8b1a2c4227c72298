/**
 * The admission state of one solution on this replica: requests in flight (a concurrency limit) and a token bucket of
 * decisions (a rate limit). Plain fields, read by the metrics at scrape time, so the hot path only adds and compares.
 */
export class SolutionGate {
  inFlight = 0;
  admitted = 0;
  refusedConcurrency = 0;
  refusedRate = 0;
  /** Decisions the solution may still start now; negative after a batch took more than was left (a debt). */
  private tokens: number;
  private refilledAt: number;

  constructor(
    readonly solution: string,
    private readonly ratePerSecond: number,
    private readonly burst: number,
    now: number,
  ) {
    this.tokens = burst;
    this.refilledAt = now;
  }

  /** Seconds until one decision's worth is back in the bucket; 0 when it is there now (or there is no rate). */
  waitSeconds(now: number): number {
    if (this.ratePerSecond === 0) return 0;
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.refilledAt) * this.ratePerSecond) / 1000);
    this.refilledAt = now;
    return this.tokens >= 1 ? 0 : (1 - this.tokens) / this.ratePerSecond;
  }

  /** Takes `decisions` from the bucket; a batch may take it below zero, and the debt delays the next request. */
  charge(decisions: number): void {
    if (this.ratePerSecond !== 0) this.tokens -= decisions;
  }
}
