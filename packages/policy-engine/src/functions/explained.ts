import type { OperandExplanation, ValueExplanation } from '../api';
import type { JsonValue } from '../ast/value-types';
import { isFailure, type EvaluateAsync, type EvaluationFailure } from './evaluation';
import { isPromise } from './maybe';
import { shortenValue } from './shorten-value';

/** What an explaining closure reports, fixed at compile time (compile/explain-values.ts). */
export interface ExplainedSpec {
  /** The recorded element this value is an operand of, and its position there; null: an operand of nothing recorded. */
  readonly parentId: number | null;
  readonly position: number;
  /** Where the value comes from, as an operand shows it. */
  readonly source: string;
  /** Set when this element is itself recorded (a comparison, function or arithmetic element). */
  readonly own: { readonly id: number; readonly element: string; readonly depth: number } | null;
}

/**
 * Wraps a closure of an explaining program: records the element with its operands, and hands its own value to the
 * element it is an operand of. Operand lists live in the mechanism's trace, keyed by element, so requests explained
 * at the same time never share one. Only explaining programs contain these closures; decisions never run them.
 */
export function explained(inner: EvaluateAsync<JsonValue>, spec: ExplainedSpec): EvaluateAsync<JsonValue> {
  return (context) => {
    const trace = context.trace;
    if (trace === null) return inner(context);
    let record: ValueExplanation | null = null;
    if (spec.own !== null) {
      const { element, depth, id } = spec.own;
      record = { element, condition: trace.condition ?? null, depth, operands: [] };
      (trace.values ??= []).push(record);
      (trace.operands ??= new Map()).set(id, record.operands);
    }
    const finish = (value: JsonValue | EvaluationFailure): JsonValue | EvaluationFailure => {
      if (record !== null) {
        // Operands after a failed one are never evaluated: their places stay empty.
        record.operands = record.operands.filter((operand) => operand !== undefined);
        if (isFailure(value)) record.error = value.message;
        else record.value = shortenValue(value).value;
      }
      if (spec.parentId !== null) {
        const operands = trace.operands?.get(spec.parentId);
        if (operands !== undefined) operands[spec.position] = operandOf(spec.source, value);
      }
      return value;
    };
    const result = inner(context);
    return isPromise(result) ? result.then(finish) : finish(result);
  };
}

function operandOf(source: string, value: JsonValue | EvaluationFailure): OperandExplanation {
  if (isFailure(value)) return { source, error: value.message };
  const shortened = shortenValue(value);
  return shortened.truncated ? { source, value: shortened.value, truncated: true } : { source, value: shortened.value };
}

/** Wraps a condition of an explaining program so the elements it evaluates know which condition they belong to. */
export function explainedCondition(position: number, inner: EvaluateAsync<boolean>): EvaluateAsync<boolean> {
  return (context) => {
    const trace = context.trace;
    if (trace === null) return inner(context);
    trace.condition = position;
    const done = <T>(value: T): T => {
      trace.condition = null;
      return value;
    };
    const result = inner(context);
    return isPromise(result) ? result.then(done) : done(result);
  };
}
