import type { EventHistory, HistoryQuery, TimeSpan, ValueChangedRequest } from '@custos/policy-engine';
import type { ActionCounts } from './action-counts';
import type { HistoryHasher } from './hashing';
import type { PoolReads } from './pool-reads';

/**
 * The history of one recorded decision: the events of its own action up to its own (by id, which for one action is
 * the order of the lock), whenever it asks. That is what it would have seen had it recorded and decided alone in
 * one transaction at its turn, so "at most N" stays exact; yet no lock is held while it decides. Other actions are
 * read as they are when asked (as before: their lock is not taken). valueChanged is the atomic compare-and-store
 * of the pool (`compareAndStore`).
 */
export class RecordedHistory implements EventHistory {
  constructor(
    private readonly action: string,
    private readonly id: number,
    private readonly at: number,
    private readonly known: ActionCounts,
    private readonly reads: PoolReads,
    private readonly hasher: HistoryHasher,
    private readonly compareAndStore: (request: ValueChangedRequest) => Promise<boolean>,
  ) {}

  async count(query: HistoryQuery, spans: readonly TimeSpan[]): Promise<readonly number[]> {
    if (spans.length === 0) return [];
    const keys = this.hasher.filterKeys(query.filters);
    if (query.action !== this.action) return this.reads.count({ action: query.action, keys }, spans);
    // The events up to this one all occurred at or before it (times of an action never go back), so a span reaching
    // past it ("today" runs to now) counts the same when open-ended — and is then the same span all day long.
    const open = spans.map((span) => (span.to > this.at ? { from: span.from, to: Infinity } : span));
    const known = open.map((span) => this.known.count(keys, span, this.id));
    if (known.every((count) => count !== undefined)) return known as number[];
    const counted = await this.reads.count({ action: this.action, keys, upTo: this.id }, open);
    open.forEach((span, position) => this.known.remember(keys, span, this.id, counted[position] as number));
    return counted;
  }

  occurrence(query: HistoryQuery, which: 'first' | 'last', before: number): Promise<number | null> {
    const keys = this.hasher.filterKeys(query.filters);
    return this.reads.occurrence({ action: query.action, keys, ...(query.action === this.action ? { upTo: this.id } : {}) }, which, before);
  }

  valueChanged(request: ValueChangedRequest): Promise<boolean> {
    return this.compareAndStore(request);
  }
}
