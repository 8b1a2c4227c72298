import type { EventHistory, HistoryQuery, NamedValue, PipAnswer, PipResolver, PxpExecutor, TimeSpan, ValueChangedRequest } from '../../src';
import { historyFilterValue } from '../../src';
import { deepEqual } from '../../src/functions/deep-equal';

/** A recorded event of the in-memory history. */
export interface RecordedEvent {
  action: string;
  time: number;
  parameters: ReadonlyMap<string, unknown>;
}

/**
 * The event history of policy-language.md §6 in memory, for tests: what the pdp's database implements, written for
 * obviousness. It keeps every call so tests can check what the engine asked.
 */
export class InMemoryHistory implements EventHistory {
  readonly events: RecordedEvent[] = [];
  readonly state = new Map<string, unknown>();
  readonly calls: string[] = [];

  record(action: string, time: number, parameters: ReadonlyMap<string, unknown> | Record<string, unknown>): void {
    const map = parameters instanceof Map ? parameters : new Map(Object.entries(parameters));
    this.events.push({ action, time, parameters: map });
  }

  async count(query: HistoryQuery, spans: readonly TimeSpan[]): Promise<readonly number[]> {
    this.calls.push(`count ${query.action} ${spans.length}`);
    const matching = this.matching(query);
    return spans.map((span) => matching.filter((event) => event.time >= span.from && event.time < span.to).length);
  }

  async occurrence(query: HistoryQuery, which: 'first' | 'last', before: number): Promise<number | null> {
    this.calls.push(`${which} ${query.action}`);
    const times = this.matching(query)
      .map((event) => event.time)
      .filter((time) => time < before)
      .sort((a, b) => a - b);
    if (times.length === 0) return null;
    return which === 'first' ? times[0]! : times[times.length - 1]!;
  }

  async valueChanged(request: ValueChangedRequest): Promise<boolean> {
    const key = `${request.policyId} ${request.id}`;
    const changed = !this.state.has(key) || !deepEqual(this.state.get(key), request.value);
    if (changed && request.store) this.state.set(key, request.value);
    return changed;
  }

  private matching(query: HistoryQuery): RecordedEvent[] {
    return this.events.filter(
      (event) =>
        event.action === query.action &&
        query.filters.every((filter) => {
          const value = historyFilterValue(filter.path, event.parameters.get(filter.name)) ?? null;
          return deepEqual(value, filter.value ?? null);
        }),
    );
  }
}

/** One answer of a fixture PIP: for a method (and optionally exact parameters), a value or a failure. */
export interface PipFixture {
  method: string;
  parameters?: Record<string, unknown>;
  value?: unknown;
  fail?: boolean;
  throws?: boolean;
  cached?: boolean;
}

export class FixturePip implements PipResolver {
  readonly calls: Array<{ method: string; parameters: readonly NamedValue[]; ttlMs: number | null; solution: string }> = [];

  constructor(private readonly fixtures: readonly PipFixture[]) {}

  resolve(method: string, parameters: readonly NamedValue[], options: { solution: string; ttlMs: number | null }): Promise<PipAnswer> {
    this.calls.push({ method, parameters, ttlMs: options.ttlMs, solution: options.solution });
    const given = Object.fromEntries(parameters.map((parameter) => [parameter.name, parameter.value]));
    const fixture = this.fixtures.find(
      (candidate) => candidate.method === method && (candidate.parameters === undefined || deepEqual(candidate.parameters, given)),
    );
    if (fixture?.throws === true) throw new Error('pip exploded');
    if (fixture === undefined || fixture.fail === true) return Promise.reject(new Error('pip unavailable'));
    return Promise.resolve(
      fixture.cached === undefined ? { ok: true, value: fixture.value } : { ok: true, value: fixture.value, cached: fixture.cached },
    );
  }
}

export interface PxpFixture {
  action: string;
  answer?: unknown;
  fail?: boolean;
}

export class FixturePxp implements PxpExecutor {
  readonly calls: Array<{ action: string; parameters: readonly NamedValue[] }> = [];

  constructor(private readonly fixtures: readonly PxpFixture[]) {}

  execute(action: string, parameters: readonly NamedValue[]): Promise<boolean> {
    this.calls.push({ action, parameters });
    const fixture = this.fixtures.find((candidate) => candidate.action === action);
    if (fixture === undefined || fixture.fail === true) return Promise.reject(new Error('pxp unavailable'));
    return Promise.resolve(fixture.answer as boolean);
  }
}

export function fixedClock(now: number): { now(): number } {
  return { now: () => now };
}
