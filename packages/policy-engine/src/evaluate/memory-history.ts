import { deepEqual } from '../functions/deep-equal';
import { historyFilterValue } from './history-filter-value';
import type { EventHistory, HistoryQuery, TimeSpan, ValueChangedRequest } from './ports';

/** One event of an in-memory history: its action, occurrence time and decoded parameter values. */
export interface MemoryHistoryEvent {
  readonly action: string;
  readonly time: number;
  readonly parameters: ReadonlyMap<string, unknown>;
}

/**
 * An event history held in memory, for tools that decide without a database (the offline test runner, tests). It
 * answers as the pdp's store does (policy-language.md §6): spans are `from` inclusive, `to` exclusive; a filter
 * matches when the recorded value (after `historyFilterValue`, a missing one read as null) deeply equals the filter's
 * value (null when absent); occurrences are looked up strictly before `before`; `valueChanged` compares with deep
 * equality, a first evaluation counts as a change, and only stores when asked to.
 */
export interface MemoryHistory extends EventHistory {
  /**
   * Records an event at exactly `time`, in any order (a fixture may describe its past out of order). The pdp records
   * an action's events in time order; callers that play events one after the other do the same by recording each at
   * its own time, in order.
   */
  record(action: string, time: number, parameters: ReadonlyMap<string, unknown> | Readonly<Record<string, unknown>>): void;
  /** Everything recorded, in order of recording. */
  readonly events: readonly MemoryHistoryEvent[];
}

export function createMemoryHistory(): MemoryHistory {
  const events: MemoryHistoryEvent[] = [];
  const state = new Map<string, unknown>();

  const matching = (query: HistoryQuery): MemoryHistoryEvent[] =>
    events.filter(
      (event) =>
        event.action === query.action &&
        query.filters.every((filter) => deepEqual(historyFilterValue(filter.path, event.parameters.get(filter.name)) ?? null, filter.value ?? null)),
    );

  return {
    events,
    record(action, time, parameters) {
      const values = parameters instanceof Map ? new Map(parameters) : new Map(Object.entries(parameters));
      events.push({ action, time: Math.trunc(time), parameters: values });
    },
    count(query: HistoryQuery, spans: readonly TimeSpan[]): Promise<readonly number[]> {
      const found = matching(query);
      return Promise.resolve(
        spans.map((span) => {
          const from = Math.trunc(span.from);
          const to = Math.trunc(span.to);
          return found.filter((event) => event.time >= from && event.time < to).length;
        }),
      );
    },
    occurrence(query: HistoryQuery, which: 'first' | 'last', before: number): Promise<number | null> {
      let found: number | null = null;
      for (const event of matching(query)) {
        if (event.time >= before) continue;
        if (found === null || (which === 'first' ? event.time < found : event.time > found)) found = event.time;
      }
      return Promise.resolve(found);
    },
    valueChanged(request: ValueChangedRequest): Promise<boolean> {
      const key = JSON.stringify([request.policyId, request.id]);
      const changed = !state.has(key) || !deepEqual(state.get(key), request.value ?? null);
      if (changed && request.store) state.set(key, request.value ?? null);
      return Promise.resolve(changed);
    },
  };
}
