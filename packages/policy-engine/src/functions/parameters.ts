import type { NamedValue } from '../api';
import type { JsonValue } from '../ast/value-types';
import { isFailure, type Evaluate, type EvaluateAsync, type EvaluationContext, EvaluationFailure } from './evaluation';
import { drive, type MaybePromise } from './maybe';

/** A compiled `parameter:T` (policy-language.md §4): `value` wins over a child; neither is null. */
export interface ParameterProgram {
  readonly name: string;
  readonly mode: 'sync' | 'async';
  readonly value: EvaluateAsync<JsonValue>;
}

function named(name: string, failure: EvaluationFailure): EvaluationFailure {
  return new EvaluationFailure(`parameter \`${name}\`: ${failure.message}`);
}

/** All parameters, in order; the first failure fails them all. For parameters known to be synchronous. */
export function evaluateParametersSync(parameters: readonly ParameterProgram[], context: EvaluationContext): NamedValue[] | EvaluationFailure {
  const values: NamedValue[] = [];
  for (const parameter of parameters) {
    const value = (parameter.value as Evaluate<JsonValue>)(context);
    if (isFailure(value)) return named(parameter.name, value);
    values.push({ name: parameter.name, value });
  }
  return values;
}

export function evaluateParameters(
  parameters: readonly ParameterProgram[],
  context: EvaluationContext,
): MaybePromise<NamedValue[] | EvaluationFailure> {
  if (parameters.every((parameter) => parameter.mode === 'sync')) return evaluateParametersSync(parameters, context);
  return drive(parameterSteps(parameters, context));
}

function* parameterSteps(
  parameters: readonly ParameterProgram[],
  context: EvaluationContext,
): Generator<unknown, NamedValue[] | EvaluationFailure, unknown> {
  const values: NamedValue[] = [];
  for (const parameter of parameters) {
    const value = (yield parameter.value(context)) as JsonValue | EvaluationFailure;
    if (isFailure(value)) return named(parameter.name, value);
    values.push({ name: parameter.name, value });
  }
  return values;
}
