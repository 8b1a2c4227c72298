import type { EventHistory, HistoryQuery, TimeSpan, ValueChangedRequest } from '@custos/policy-engine';
import type { HistoryHasher } from './hashing';

/** The explained event, as it would be recorded: action, time and keys. */
export interface OwnEvent {
  readonly action: string;
  readonly at: number;
  readonly keys: ReadonlySet<string>;
}

/**
 * `/event/explain` records nothing (api.md §3), yet should show the counts the decision would see: the explained
 * event is added wherever it would have been counted. valueChanged is compared only (the engine asks with store false).
 */
export class ExplainingHistory implements EventHistory {
  constructor(
    private readonly reader: EventHistory,
    private readonly hasher: HistoryHasher,
    private readonly own: OwnEvent | null,
  ) {}

  async count(query: HistoryQuery, spans: readonly TimeSpan[]): Promise<readonly number[]> {
    const counts = await this.reader.count(query, spans);
    const own = this.matching(query);
    if (own === null) return counts;
    const at = own.at;
    return counts.map((count, index) => {
      const span = spans[index];
      return span !== undefined && span.from <= at && at < span.to ? count + 1 : count;
    });
  }

  async occurrence(query: HistoryQuery, which: 'first' | 'last', before: number): Promise<number | null> {
    const found = await this.reader.occurrence(query, which, before);
    const own = this.matching(query);
    if (own === null || own.at >= before) return found;
    const at = own.at;
    if (found === null) return at;
    return which === 'first' ? Math.min(found, at) : Math.max(found, at);
  }

  valueChanged(request: ValueChangedRequest): Promise<boolean> {
    return this.reader.valueChanged({ ...request, store: false });
  }

  /** The event being explained, when the query would find it. */
  private matching(query: HistoryQuery): OwnEvent | null {
    if (this.own === null || query.action !== this.own.action) return null;
    const keys = this.own.keys;
    return this.hasher.filterKeys(query.filters).every((key) => keys.has(key)) ? this.own : null;
  }
}
