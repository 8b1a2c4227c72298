import type { JsonValue } from '../ast/value-types';
import { EvaluationFailure, isFailure, type Evaluate } from './evaluation';
import type { Combine } from './strict';

/**
 * `plus`, `minus`, `multiply`, `divide` (policy-language.md §5): left to right over ≥2 numbers. Division by zero is an
 * evaluation error, and so is a result that is no longer a finite number (JSON has no infinity).
 */
export function arithmetic(name: 'plus' | 'minus' | 'multiply' | 'divide'): Combine {
  return (values) => {
    let result = values[0] as number;
    for (let index = 1; index < values.length; index += 1) {
      const operand = values[index] as number;
      switch (name) {
        case 'plus':
          result += operand;
          break;
        case 'minus':
          result -= operand;
          break;
        case 'multiply':
          result *= operand;
          break;
        case 'divide':
          if (operand === 0) return new EvaluationFailure('division by zero in `divide`');
          result /= operand;
          break;
      }
    }
    return Number.isFinite(result) ? result : new EvaluationFailure(`the result of \`${name}\` is out of range for a number`);
  };
}

/** `size`: the length of a list, or of a string in UTF-16 code units (as Java counts it). */
export const size: Combine = (values) => {
  const value = values[0];
  return typeof value === 'string' || Array.isArray(value) ? value.length : new EvaluationFailure('`size` needs a list or a string');
};

/** `less`, `lessEqual`, `greater`, `greaterEqual`, chained: `a < b < c` holds when each neighbour pair does. */
export function comparison(name: 'less' | 'lessEqual' | 'greater' | 'greaterEqual'): Combine {
  const holds: (left: number, right: number) => boolean =
    name === 'less'
      ? (left, right) => left < right
      : name === 'lessEqual'
        ? (left, right) => left <= right
        : name === 'greater'
          ? (left, right) => left > right
          : (left, right) => left >= right;
  return (values) => {
    for (let index = 1; index < values.length; index += 1) {
      if (!holds(values[index - 1] as number, values[index] as number)) return false;
    }
    return true;
  };
}

/** The same comparison of exactly two operands, as one closure. */
export function compare2(
  left: Evaluate<number>,
  right: Evaluate<number>,
  name: 'less' | 'lessEqual' | 'greater' | 'greaterEqual',
): Evaluate<boolean> {
  const holds = comparison(name);
  return (context) => {
    const a = left(context);
    if (isFailure(a)) return a;
    const b = right(context);
    if (isFailure(b)) return b;
    switch (name) {
      case 'less':
        return a < b;
      case 'lessEqual':
        return a <= b;
      case 'greater':
        return a > b;
      default:
        return holds([a, b], context) as boolean;
    }
  };
}

/** `concat`: numbers without a trailing `.0` when integral, objects and lists as JSON, booleans as `true`/`false`. */
export const concat: Combine = (values) => values.map(printed).join('');

function printed(value: JsonValue): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}
