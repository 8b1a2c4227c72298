import type { JsonValue } from '../ast/value-types';
import { deepEqual } from './deep-equal';
import { isFailure, type Evaluate } from './evaluation';

/** `equals`: every child equals the first. All children are evaluated, so an error is never hidden by a mismatch. */
export function equals(children: ReadonlyArray<Evaluate<JsonValue>>): Evaluate<boolean> {
  const [first, ...rest] = children;
  if (first === undefined) throw new Error('bug: equals compiled without children');
  return (context) => {
    const reference = first(context);
    if (isFailure(reference)) return reference;
    let allEqual = true;
    for (const child of rest) {
      const value = child(context);
      if (isFailure(value)) return value;
      if (allEqual && !deepEqual(reference, value)) allEqual = false;
    }
    return allEqual;
  };
}
