import type { EventHistory, HistoryQuery, TimeSpan, ValueChangedRequest } from '@custos/policy-engine';
import type { BatchTransaction } from './batch-transaction';
import type { ValueRow } from './batch-sql';
import type { HistoryHasher } from './hashing';

/** An event of the batch, as it will be recorded. */
export interface BatchEvent {
  readonly at: number;
  readonly keys: ReadonlySet<string>;
  readonly revision: number;
}

/**
 * One evaluation round of a batch: the members' events in arrival order, not yet written. Member i sees what
 * PostgreSQL holds for the action (committed before the batch took the lock, so the same for every member) plus the
 * events of members 0…i, its own included, exactly as if each member had recorded and decided in its own transaction
 * one after the other. valueChanged state is kept here too and written at commit: member i's comparison waits until
 * members 0…i-1 are evaluated, so it sees their stores in arrival order.
 */
export class BatchRound {
  private readonly settled: Array<Promise<void>>;
  private readonly settle: Array<() => void> = [];
  private readonly values = new Map<string, { policyId: string; blockId: string; hash: string | null; revision: number; written: boolean }>();

  constructor(
    private readonly tx: BatchTransaction,
    private readonly hasher: HistoryHasher,
    private readonly action: string,
    private readonly events: readonly BatchEvent[],
  ) {
    this.settled = events.map(() => new Promise<void>((resolve) => this.settle.push(resolve)));
  }

  /** The history member `index` decides with. */
  historyOf(index: number): EventHistory {
    return new MemberHistory(this, index);
  }

  /** Marks member `index` evaluated (successfully or not): later members' valueChanged may go on. */
  done(index: number): void {
    this.settle[index]?.();
  }

  /** The valueChanged state to write at commit: the last value stored by any member, per (policy, id). */
  valueWrites(): ValueRow[] {
    const rows: ValueRow[] = [];
    for (const value of this.values.values()) {
      if (value.written && value.hash !== null) rows.push({ policyId: value.policyId, blockId: value.blockId, hash: value.hash, revision: value.revision });
    }
    return rows;
  }

  async count(index: number, query: HistoryQuery, spans: readonly TimeSpan[]): Promise<readonly number[]> {
    if (spans.length === 0) return [];
    const keys = this.hasher.filterKeys(query.filters);
    const stored = await this.tx.count(query.action, keys, spans);
    if (query.action !== this.action) return stored;
    return stored.map((count, position) => {
      const span = spans[position] as TimeSpan;
      let own = 0;
      for (let member = 0; member <= index; member += 1) {
        const event = this.events[member] as BatchEvent;
        if (span.from <= event.at && event.at < span.to && matches(event, keys)) own += 1;
      }
      return count + own;
    });
  }

  async occurrence(index: number, query: HistoryQuery, which: 'first' | 'last', before: number): Promise<number | null> {
    const keys = this.hasher.filterKeys(query.filters);
    let found = await this.tx.occurrence(query.action, keys, which, before);
    if (query.action !== this.action) return found;
    for (let member = 0; member <= index; member += 1) {
      const event = this.events[member] as BatchEvent;
      if (event.at >= before || !matches(event, keys)) continue;
      if (found === null || (which === 'first' ? event.at < found : event.at > found)) found = event.at;
    }
    return found;
  }

  async valueChanged(index: number, request: ValueChangedRequest): Promise<boolean> {
    const hash = this.hasher.value(request.value);
    await Promise.all(this.settled.slice(0, index));
    const key = JSON.stringify([request.policyId, request.id]);
    let value = this.values.get(key);
    if (value === undefined) {
      const stored = await this.tx.storedValue(request.policyId, request.id);
      // Another member may have filled it while this one read.
      value = this.values.get(key) ?? { policyId: request.policyId, blockId: request.id, hash: stored, revision: 0, written: false };
      this.values.set(key, value);
    }
    const changed = value.hash !== hash;
    if (changed && request.store) {
      value.hash = hash;
      value.revision = (this.events[index] as BatchEvent).revision;
      value.written = true;
    }
    return changed;
  }
}

function matches(event: BatchEvent, keys: readonly string[]): boolean {
  for (const key of keys) if (!event.keys.has(key)) return false;
  return true;
}

class MemberHistory implements EventHistory {
  constructor(
    private readonly round: BatchRound,
    private readonly index: number,
  ) {}

  count(query: HistoryQuery, spans: readonly TimeSpan[]): Promise<readonly number[]> {
    return this.round.count(this.index, query, spans);
  }

  occurrence(query: HistoryQuery, which: 'first' | 'last', before: number): Promise<number | null> {
    return this.round.occurrence(this.index, query, which, before);
  }

  valueChanged(request: ValueChangedRequest): Promise<boolean> {
    return this.round.valueChanged(this.index, request);
  }
}
