import type { JsonValue } from '../ast/value-types';
import type { Evaluate } from './evaluation';

/** A literal. Frozen, because the same value is handed out to every request and to callers of `decide`. */
export function constant(value: JsonValue): Evaluate<JsonValue> {
  const frozen = deepFreeze(value);
  return () => frozen;
}

export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const item of Object.values(value)) deepFreeze(item);
  }
  return value;
}
