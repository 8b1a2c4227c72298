import type { EventHistory, HistoryQuery, NamedValue, PipAnswer, PipResolver, PxpExecutor, TimeSpan, ValueChangedRequest } from '../../src';
import { createMemoryHistory, type MemoryHistory } from '../../src';
import { deepEqual } from '../../src/functions/deep-equal';

/**
 * The engine's in-memory history (what the pdp's database implements), with every call kept so tests can check
 * what the engine asked.
 */
export class InMemoryHistory implements EventHistory {
  readonly calls: string[] = [];
  private readonly memory: MemoryHistory = createMemoryHistory();

  record(action: string, time: number, parameters: ReadonlyMap<string, unknown> | Record<string, unknown>): void {
    this.memory.record(action, time, parameters);
  }

  count(query: HistoryQuery, spans: readonly TimeSpan[]): Promise<readonly number[]> {
    this.calls.push(`count ${query.action} ${spans.length}`);
    return this.memory.count(query, spans);
  }

  occurrence(query: HistoryQuery, which: 'first' | 'last', before: number): Promise<number | null> {
    this.calls.push(`${which} ${query.action}`);
    return this.memory.occurrence(query, which, before);
  }

  valueChanged(request: ValueChangedRequest): Promise<boolean> {
    return this.memory.valueChanged(request);
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
