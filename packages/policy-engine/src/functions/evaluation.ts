import type {
  ConditionExecutionExplanation,
  EngineEvent,
  HistoryExplanation,
  OperandExplanation,
  PipExplanation,
  ValueChangedExplanation,
  ValueExplanation,
} from '../api';
import type { JsonValue, ValueType } from '../ast/value-types';
import type { EvaluationPorts, PipAnswer } from '../evaluate/ports';
import type { MaybePromise } from './maybe';

/** State shared by every mechanism of one `decide` call. */
export interface RequestState {
  readonly ports: EvaluationPorts | undefined;
  /** Explanations have no side effects (api.md §3): no PXP call, no valueChanged store. */
  readonly explain: boolean;
  /** variableDeclaration slot → its value, failure or pending value; created on first use. */
  variables: Map<number, unknown> | null;
  /** (method, parameters) → the answer, so one request never asks a PIP the same thing twice (§8). */
  pipAnswers: Map<string, Promise<PipAnswer>> | null;
  /** The clock, read once so every span of the request agrees; undefined until needed. */
  now: number | undefined;
}

/** What port-using closures report for an explanation; one per mechanism. */
export interface Trace {
  pip?: PipExplanation[];
  history?: HistoryExplanation[];
  valueChanged?: ValueChangedExplanation[];
  conditionExecutions?: ConditionExecutionExplanation[];
  values?: ValueExplanation[];
  /** Operand lists of the elements being evaluated, by compile-time id (compile/explain-values.ts). */
  operands?: Map<number, OperandExplanation[]>;
  /** The condition being evaluated; null outside conditions. */
  condition?: number | null;
}

/** What a closure may read while deciding one event. */
export interface EvaluationContext {
  readonly event: EngineEvent;
  readonly timeZone: string;
  readonly request: RequestState;
  /** Null unless explaining. */
  readonly trace: Trace | null;
}

/**
 * Why an evaluation could not produce a value (policy-language.md §7.4: the mechanism then counts as inhibiting).
 * Returned, not thrown: it is an expected outcome of a request, and a JSON value can never be an instance of it.
 */
export class EvaluationFailure {
  constructor(readonly message: string) {}
}

export type Evaluate<T> = (context: EvaluationContext) => T | EvaluationFailure;
/** A closure that may wait for a port. */
export type EvaluateAsync<T> = (context: EvaluationContext) => MaybePromise<T | EvaluationFailure>;

/**
 * A compiled expression. `sync` closures never return a promise: everything pure compiles to them, and so does
 * every combinator whose children are all `sync`. Only a subtree that contains a port-using element is `async`;
 * each combinator picks its implementation once, at compile time, from its children's modes.
 */
export type CompiledExpression =
  | { readonly mode: 'sync'; readonly type: ValueType; readonly evaluate: Evaluate<JsonValue> }
  | { readonly mode: 'async'; readonly type: ValueType; readonly evaluate: EvaluateAsync<JsonValue> };

/**
 * An exception met while evaluating (a bug in a closure, never an expected outcome) as the failure of the expression,
 * so the mechanism fails closed with a message instead of the exception escaping the decision.
 */
export function thrownFailure(error: unknown): EvaluationFailure {
  return new EvaluationFailure(`internal error: ${error instanceof Error ? error.message : String(error)}`);
}

export function isFailure(value: unknown): value is EvaluationFailure {
  return value instanceof EvaluationFailure;
}

export function allSync(expressions: readonly CompiledExpression[]): boolean {
  return expressions.every((expression) => expression.mode === 'sync');
}

export function syncExpression(type: ValueType, evaluate: Evaluate<JsonValue>): CompiledExpression {
  return { mode: 'sync', type, evaluate };
}

export function asyncExpression(type: ValueType, evaluate: EvaluateAsync<JsonValue>): CompiledExpression {
  return { mode: 'async', type, evaluate };
}

/** Pushes an explanation record when explaining. */
export function traced<K extends 'pip' | 'history' | 'valueChanged' | 'conditionExecutions'>(context: EvaluationContext, kind: K, record: NonNullable<Trace[K]>[number]): void {
  const trace = context.trace;
  if (trace === null) return;
  const list = (trace[kind] ??= []) as Array<typeof record>;
  list.push(record);
}
