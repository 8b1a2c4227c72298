/**
 * At most one run of a task at a time: a call while one is under way gets that run's promise instead of a second
 * run (one key-set reload, one list fetch, however many callers ask at once).
 */
export class SingleFlight<T> {
  private current: Promise<T> | undefined;

  constructor(private readonly task: () => Promise<T>) {}

  run(): Promise<T> {
    this.current ??= this.task().finally(() => {
      this.current = undefined;
    });
    return this.current;
  }

  /** The run under way, if any. */
  get running(): Promise<T> | undefined {
    return this.current;
  }
}
