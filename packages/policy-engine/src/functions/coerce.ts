import { typeOfValue, type JsonValue, type ValueType } from '../ast/value-types';
import { readNumberText } from '../parse/literals';
import { EvaluationFailure } from './evaluation';

/**
 * Fits an event value to the type a policy expects (policy-language.md §4): numeric strings are numbers,
 * `"true"`/`"false"` are booleans, anything else of the wrong type fails. Messages name types, never values,
 * because parameter values must not reach logs.
 */
export function coerce(expected: ValueType, value: unknown, what: string): JsonValue | EvaluationFailure {
  const actual = typeOfValue(value);
  if (actual === expected) return value as JsonValue;
  if (expected === 'number' && actual === 'string') {
    const read = readNumberText(value as string);
    if (read.ok) return read.value;
    return new EvaluationFailure(`${what} is a string that is not a number`);
  }
  if (expected === 'boolean' && (value === 'true' || value === 'false')) return value === 'true';
  return new EvaluationFailure(`${what} is ${article(actual)}, expected ${article(expected)}`);
}

function article(type: string): string {
  if (type === 'unsupported') return 'a value of no language type';
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}
