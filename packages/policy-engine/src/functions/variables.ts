import type { JsonValue } from '../ast/value-types';
import { isPromise } from './maybe';
import type { EvaluateAsync } from './evaluation';

/** Slots are unique across every compiled policy, so one map per request holds the variables of all its policies. */
let nextSlot = 0;

export function newVariableSlot(): number {
  nextSlot += 1;
  return nextSlot;
}

/**
 * `variable:T` (policy-language.md §4): the declaration's value, evaluated at most once per policy per request and
 * only when first referenced. A failure is remembered like a value. The same closure serves synchronous declarations
 * (it then never returns a promise) and asynchronous ones (the pending promise is shared, then its value).
 */
export function variableValue(slot: number, declaration: EvaluateAsync<JsonValue>): EvaluateAsync<JsonValue> {
  return (context) => {
    const values = (context.request.variables ??= new Map());
    const known = values.get(slot);
    if (known !== undefined) return known as ReturnType<EvaluateAsync<JsonValue>>;
    const value = declaration(context);
    values.set(slot, value);
    if (isPromise(value)) void value.then((settled) => values.set(slot, settled));
    return value;
  };
}
