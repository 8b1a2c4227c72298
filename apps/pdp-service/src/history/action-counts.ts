import type { TimeSpan } from '@custos/policy-engine';

/** A recorded event of the action as this replica's batches have seen it. */
export interface SeenEvent {
  readonly id: number;
  readonly at: number;
  readonly keys: ReadonlySet<string>;
}

/** Events remembered per action (the newest); a count older than the oldest of them is asked again. */
export const SEEN_EVENTS = 20_000;
/** Counts remembered per action; beyond that all are forgotten (and asked again when needed). */
export const REMEMBERED_COUNTS = 100_000;

interface Remembered {
  count: number;
  /** The count of every event of the action with an id up to this one. */
  asOf: number;
}

/**
 * What this replica knows of one action's recorded events, so that a count asked again (the "today" of a daily limit,
 * per user) costs no statement:
 *
 * - every batch hands over the action's events recorded since the previous one, by any replica, its own included
 *   (`catchUp`): ids of one action grow in lock order, so the tail holds every event of the action with an id above
 *   `tailStart`;
 * - a count is remembered as of an id, and moved to any other id inside the tail by adding or taking away the tail's
 *   events between the two: exactly what PostgreSQL would count up to that id. Retention deletes only events older
 *   than any span a deployed policy can ask for (policy-language.md §6), so it never changes a count still asked.
 */
export class ActionCounts {
  /** The newest event seen; undefined until a batch has recorded. */
  last: { id: number; at: number } | undefined;
  private tailStart = 0;
  private tail: SeenEvent[] = [];
  private readonly counts = new Map<string, Remembered>();

  /**
   * Takes the events a batch returned (id order): every event of the action with an id above `from`, up to the
   * newest of them. Those joining up with what is known (`from` at or below `last`) extend it; otherwise (the first
   * batch, a batch that could not return all it was asked for, or one that saw only its own events while another
   * replica's came between) the tail starts over from them, every count forgotten. Batches of one replica may come back in any order: events already seen are skipped.
   */
  catchUp(events: readonly SeenEvent[], from: number): void {
    if (events.length === 0) return;
    if (this.last === undefined || from > this.last.id) {
      this.forget();
      this.tailStart = from;
    }
    for (const event of events) {
      if (this.last !== undefined && event.id <= this.last.id) continue;
      this.tail.push(event);
      this.last = { id: event.id, at: event.at };
    }
    if (this.tail.length > SEEN_EVENTS) {
      const dropped = this.tail.length - SEEN_EVENTS / 2;
      this.tailStart = (this.tail[dropped - 1] as SeenEvent).id;
      this.tail = this.tail.slice(dropped);
    }
  }

  /** Forgets every event and count: those it knew of were deleted, so what it counted from them may be wrong. */
  forget(): void {
    this.tail = [];
    this.counts.clear();
    this.last = undefined;
  }

  /** The count of events matching `keys` in `span` with ids up to `upTo`, when it can be known without asking. */
  count(keys: readonly string[], span: TimeSpan, upTo: number): number | undefined {
    const remembered = this.counts.get(countKey(keys, span));
    if (remembered === undefined || this.last === undefined) return undefined;
    if (remembered.asOf < this.tailStart || upTo < this.tailStart || upTo > this.last.id) return undefined;
    const low = Math.min(remembered.asOf, upTo);
    const high = Math.max(remembered.asOf, upTo);
    let between = 0;
    for (let index = this.firstAfter(low); index < this.tail.length; index += 1) {
      const event = this.tail[index] as SeenEvent;
      if (event.id > high) break;
      if (span.from <= event.at && event.at < span.to && keys.every((key) => event.keys.has(key))) between += 1;
    }
    const count = upTo >= remembered.asOf ? remembered.count + between : remembered.count - between;
    // Keep the newest: later questions are mostly about newer events.
    if (upTo > remembered.asOf) {
      remembered.count = count;
      remembered.asOf = upTo;
    }
    return count;
  }

  /** Remembers a count PostgreSQL answered for the events with ids up to `asOf`. */
  remember(keys: readonly string[], span: TimeSpan, asOf: number, count: number): void {
    const key = countKey(keys, span);
    const remembered = this.counts.get(key);
    if (remembered !== undefined && remembered.asOf >= asOf) return;
    if (remembered === undefined && this.counts.size >= REMEMBERED_COUNTS) this.counts.clear();
    this.counts.set(key, { count, asOf });
  }

  /** Position of the first tail event with an id above `id`. */
  private firstAfter(id: number): number {
    let low = 0;
    let high = this.tail.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if ((this.tail[middle] as SeenEvent).id <= id) low = middle + 1;
      else high = middle;
    }
    return low;
  }
}

const countKey = (keys: readonly string[], span: TimeSpan): string => `${span.from}/${span.to}/${keys.join(',')}`;
