import type { JsonValue } from '../ast/value-types';
import { deepEqual } from './deep-equal';
import { isFailure, type Evaluate } from './evaluation';
import type { Combine } from './strict';

/** `equals`: every operand equals the first (deep JSON equality). */
export const allEqual: Combine = (values) => {
  const reference = values[0];
  for (let index = 1; index < values.length; index += 1) if (!deepEqual(reference, values[index])) return false;
  return true;
};

/** `equals` over plain closures. All children are evaluated, so an error is never hidden by a mismatch. */
export function equals(children: readonly [Evaluate<JsonValue>, ...Array<Evaluate<JsonValue>>]): Evaluate<boolean> {
  const first = children[0];
  // slice, not `...rest`: a rest array keeps room for 17 elements for as long as the policy is deployed (issue 26).
  const rest = children.slice(1);
  return (context) => {
    const reference = first(context);
    if (isFailure(reference)) return reference;
    let allEqualSoFar = true;
    for (const child of rest) {
      const value = child(context);
      if (isFailure(value)) return value;
      if (allEqualSoFar && !deepEqual(reference, value)) allEqualSoFar = false;
    }
    return allEqualSoFar;
  };
}
