import type { JsonValue, ValueType } from '../ast/value-types';
import {
  allSync,
  asyncExpression,
  isFailure,
  syncExpression,
  type CompiledExpression,
  type Evaluate,
  type EvaluationContext,
  type EvaluateAsync,
  type EvaluationFailure,
} from './evaluation';
import { drive } from './maybe';

/** What a function does with its operands' values, once all of them are known. */
export type Combine = (values: readonly JsonValue[], context: EvaluationContext) => JsonValue | EvaluationFailure;

/**
 * A function that evaluates every operand, left to right, stopping at the first failure, then combines the values.
 * Every function of §5 except the short-circuit ones (and, or, implies) is one of these. Synchronous when every
 * operand is; otherwise it waits for each operand in turn.
 */
export function strict(type: ValueType, operands: readonly CompiledExpression[], combine: Combine): CompiledExpression {
  if (allSync(operands)) {
    const evaluators = operands.map((operand) => operand.evaluate as Evaluate<JsonValue>);
    const [only] = evaluators;
    if (evaluators.length === 1 && only !== undefined) {
      return syncExpression(type, (context) => {
        const value = only(context);
        return isFailure(value) ? value : combine([value], context);
      });
    }
    return syncExpression(type, (context) => {
      const values: JsonValue[] = [];
      for (const evaluate of evaluators) {
        const value = evaluate(context);
        if (isFailure(value)) return value;
        values.push(value);
      }
      return combine(values, context);
    });
  }
  const evaluators = operands.map((operand) => operand.evaluate);
  return asyncExpression(type, (context) => drive(strictSteps(evaluators, context, combine)));
}

function* strictSteps(
  evaluators: ReadonlyArray<EvaluateAsync<JsonValue>>,
  context: EvaluationContext,
  combine: Combine,
): Generator<unknown, JsonValue | EvaluationFailure, unknown> {
  const values: JsonValue[] = [];
  for (const evaluate of evaluators) {
    const value = (yield evaluate(context)) as JsonValue | EvaluationFailure;
    if (isFailure(value)) return value;
    values.push(value);
  }
  return combine(values, context);
}
