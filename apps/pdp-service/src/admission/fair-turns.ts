/**
 * Turns on the event loop for long request work (parsing a batch, deciding its items), granted round robin per
 * solution: each pass of the loop gives every solution that waits one turn, then lets I/O in. A solution with 60
 * batches in flight therefore moves one of them per pass, like a solution with one, and a single POST /event (which
 * takes no turn) waits at most one turn per waiting solution, never behind a whole flood.
 */
export class FairTurns {
  /** Waiters per solution key; Map order is the round-robin order. */
  private readonly waiting = new Map<string, Array<() => void>>();
  private scheduled = false;

  /** Resolves at this key's next turn. */
  turn(key: string): Promise<void> {
    return new Promise((resolve) => {
      const queue = this.waiting.get(key);
      if (queue === undefined) this.waiting.set(key, [resolve]);
      else queue.push(resolve);
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(this.grant);
      }
    });
  }

  /** How many turns wait (for tests and metrics). */
  get pending(): number {
    let count = 0;
    for (const queue of this.waiting.values()) count += queue.length;
    return count;
  }

  private readonly grant = (): void => {
    this.scheduled = false;
    // The continuations run as microtasks after this returns, one work slice each, before the loop polls again.
    for (const [key, queue] of this.waiting) {
      const next = queue.shift();
      if (queue.length === 0) this.waiting.delete(key);
      next?.();
    }
    if (this.waiting.size > 0 && !this.scheduled) {
      this.scheduled = true;
      setImmediate(this.grant);
    }
  };
}

/**
 * Work of one request cut into slices: `due()` says whether the slice has run long enough to give the loop back,
 * `next()` waits for the request's next turn and starts a new slice.
 */
export class WorkSlices {
  private startedAt = performance.now();

  constructor(
    private readonly turns: FairTurns,
    private readonly key: string,
    private readonly sliceMs: number,
  ) {}

  due(): boolean {
    return performance.now() - this.startedAt >= this.sliceMs;
  }

  async next(): Promise<void> {
    await this.turns.turn(this.key);
    this.startedAt = performance.now();
  }
}
