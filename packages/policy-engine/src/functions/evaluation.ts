import type { EngineEvent } from '../api';
import type { JsonValue, ValueType } from '../ast/value-types';

/** What a closure may read while deciding one event. */
export interface EvaluationContext {
  readonly event: EngineEvent;
  readonly timeZone: string;
}

/**
 * Why an evaluation could not produce a value (policy-language.md §7.4: the mechanism then counts as inhibiting).
 * Returned, not thrown: it is an expected outcome of a request, and a JSON value can never be an instance of it.
 */
export class EvaluationFailure {
  constructor(readonly message: string) {}
}

export type Evaluate<T> = (context: EvaluationContext) => T | EvaluationFailure;

/**
 * A compiled expression. Every closure today is synchronous (`mode: 'sync'`). Mechanisms that need outside state
 * (PIPs, event history, execute in a condition) will come as `mode: 'async'` closures returning promises; each
 * combinator will then choose, once at compile time, a synchronous or an asynchronous implementation from its
 * children's modes, so pure subtrees keep exactly these closures and never pay for a promise.
 */
export interface CompiledExpression {
  readonly mode: 'sync';
  readonly type: ValueType;
  readonly evaluate: Evaluate<JsonValue>;
}

export function isFailure(value: unknown): value is EvaluationFailure {
  return value instanceof EvaluationFailure;
}
