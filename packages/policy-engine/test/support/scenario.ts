import type { EngineDecision } from '../../src';
import { InMemoryHistory } from './ports';

/** What a case of the conformance suite or a decide comment of the language document expects of one decision. */
export interface ExpectedDecision {
  allowed?: boolean;
  decided?: boolean;
  delayMs?: number;
  modifiers?: object[];
  executions?: object[];
  matchedPolicies?: string[];
  errors?: number;
  errorIncludes?: string;
  explanation?: object[];
}

/** One event of the history fixture: when it happened (ISO text or ms), its action and parameters. */
export interface RecordedEvent {
  action?: string;
  at: string | number;
  parameters?: Record<string, unknown>;
}

/** Times are ISO texts (with their offset) or ms since the epoch; `fallback` when absent. */
export function instant(value: string | number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value === 'number') return value;
  const parsed = Date.parse(value);
  if (Number.isNaN(parsed)) throw new Error(`not a time: ${value}`);
  return parsed;
}

/** A history holding the fixture's events, each of `defaultAction` unless it names one. */
export function historyOf(events: readonly RecordedEvent[] | undefined, defaultAction: string): InMemoryHistory {
  const history = new InMemoryHistory();
  for (const recorded of events ?? []) history.record(recorded.action ?? defaultAction, instant(recorded.at, 0), recorded.parameters ?? {});
  return history;
}

/** Asserts `allowed` and every other expectation given; what is not given is not checked. */
export function checkDecision(actual: EngineDecision, expected: ExpectedDecision): void {
  expect(actual.allowed).toBe(expected.allowed);
  if (expected.decided !== undefined) expect(actual.decided).toBe(expected.decided);
  if (expected.delayMs !== undefined) expect(actual.delayMs).toBe(expected.delayMs);
  if (expected.modifiers !== undefined) expect(actual.modifiers).toMatchObject(expected.modifiers);
  if (expected.executions !== undefined) expect(actual.executions).toMatchObject(expected.executions);
  if (expected.matchedPolicies !== undefined) expect(actual.matchedPolicies).toEqual(expected.matchedPolicies);
  if (expected.errors !== undefined) expect(actual.errors).toHaveLength(expected.errors);
  if (expected.errorIncludes !== undefined) expect(actual.errors.map((error) => error.message).join('\n')).toContain(expected.errorIncludes);
  if (expected.explanation !== undefined) expect(actual.explanation).toMatchObject(expected.explanation);
}
