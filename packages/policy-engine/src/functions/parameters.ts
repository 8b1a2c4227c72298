import type { NamedValue } from '../api';
import type { JsonValue } from '../ast/value-types';
import { isFailure, type EvaluateAsync, type EvaluationContext, EvaluationFailure } from './evaluation';
import { isPromise, type MaybePromise } from './maybe';

/** A compiled `parameter:T` (policy-language.md §4): `value` wins over a child; neither is null. */
export interface ParameterProgram {
  readonly name: string;
  readonly mode: 'sync' | 'async';
  readonly value: EvaluateAsync<JsonValue>;
}

function named(name: string, failure: EvaluationFailure): EvaluationFailure {
  return new EvaluationFailure(`parameter \`${name}\`: ${failure.message}`);
}

/**
 * All parameters, in order; the first failure fails them all. Plain calls while the values are ready: a promise only
 * from the first parameter that waits for a port, the rest evaluated when it has answered.
 */
export function evaluateParameters(
  parameters: readonly ParameterProgram[],
  context: EvaluationContext,
): MaybePromise<NamedValue[] | EvaluationFailure> {
  return parametersFrom(parameters, context, 0, []);
}

function parametersFrom(
  parameters: readonly ParameterProgram[],
  context: EvaluationContext,
  from: number,
  values: NamedValue[],
): MaybePromise<NamedValue[] | EvaluationFailure> {
  for (let position = from; position < parameters.length; position += 1) {
    const parameter = parameters[position];
    if (parameter === undefined) break;
    const value = parameter.value(context);
    if (isPromise(value)) {
      return value.then((ready) => {
        if (isFailure(ready)) return named(parameter.name, ready);
        values.push({ name: parameter.name, value: ready });
        return parametersFrom(parameters, context, position + 1, values);
      });
    }
    if (isFailure(value)) return named(parameter.name, value);
    values.push({ name: parameter.name, value });
  }
  return values;
}
