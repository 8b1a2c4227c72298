/**
 * The time one call may take. Everything the call waits for (the shared token fetch, the pdp request, its body,
 * backoff pauses) ends when the deadline passes, with `reason` as the error, so a stalled pdp never holds the
 * caller longer than `timeoutMs`.
 */
export class Deadline {
  readonly reason: Error;
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;

  private readonly endsAt: number;

  constructor(readonly timeoutMs: number) {
    this.endsAt = performance.now() + timeoutMs;
    this.reason = new Error(`deadline of ${timeoutMs} ms passed`);
    this.reason.name = 'TimeoutError';
    this.timer = setTimeout(() => this.controller.abort(this.reason), timeoutMs);
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Milliseconds left, 0 once passed. */
  get remainingMs(): number {
    return Math.max(0, this.endsAt - performance.now());
  }

  get expired(): boolean {
    return this.controller.signal.aborted;
  }

  /** `promise`, or the deadline's reason if it passes first. */
  race<T>(promise: Promise<T>): Promise<T> {
    if (this.expired) return Promise.reject(this.reason);
    let onAbort = (): void => undefined;
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => reject(this.reason);
      this.signal.addEventListener('abort', onAbort, { once: true });
    });
    return Promise.race([promise, aborted]).finally(() => this.signal.removeEventListener('abort', onAbort));
  }

  /** Waits `ms`, or less if the deadline passes first (then rejects with its reason). */
  sleep(ms: number): Promise<void> {
    return this.race(new Promise<void>((resolve) => setTimeout(resolve, ms).unref()));
  }

  clear(): void {
    clearTimeout(this.timer);
  }
}

/** Waits `ms` milliseconds: how a decision's delay is applied. */
export const wait = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
