import type { JsonValue } from '../ast/value-types';
import { isPromise } from './maybe';
import { thrownFailure, type EvaluateAsync } from './evaluation';

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
 *
 * The shared promise is the one that records the value, and it never rejects: every reference awaits it, and no
 * side chain is left without a handler to reject unobserved.
 */
export function variableValue(slot: number, declaration: EvaluateAsync<JsonValue>): EvaluateAsync<JsonValue> {
  return (context) => {
    const values = (context.request.variables ??= new Map());
    const known = values.get(slot);
    if (known !== undefined) return known as ReturnType<EvaluateAsync<JsonValue>>;
    const value = declaration(context);
    if (!isPromise(value)) {
      values.set(slot, value);
      return value;
    }
    const pending = value.then(
      (settled) => remember(values, slot, settled),
      (error: unknown) => remember(values, slot, thrownFailure(error)),
    );
    values.set(slot, pending);
    return pending;
  };
}

function remember<T>(values: Map<number, unknown>, slot: number, settled: T): T {
  values.set(slot, settled);
  return settled;
}
