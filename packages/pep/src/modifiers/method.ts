import type { Arguments } from './arguments';

/** Marks a selected value for removal (what `delete` returns). */
export const REMOVE: unique symbol = Symbol('remove');

/** Maps one selected value (at `path`, for messages) to its new value, or throws why it cannot. */
export type Transform = (value: unknown, path: string) => unknown;

/** A modifier method: the parameters it accepts, and how it turns its arguments into a transform. */
export interface ModifierMethod {
  readonly parameters: readonly string[];
  prepare(args: Arguments): Transform;
}

/** A method that only works on one kind of value. */
export function expectString(method: string, value: unknown, path: string): string {
  if (typeof value !== 'string') throw new TypeError(`\`${method}\` applies to strings, found ${describe(value)} at \`${path}\``);
  return value;
}

export function expectNumber(method: string, value: unknown, path: string): number {
  if (typeof value !== 'number') throw new TypeError(`\`${method}\` applies to numbers, found ${describe(value)} at \`${path}\``);
  return value;
}

/** A computed number must still be JSON: no Infinity, no NaN; and no negative zero either. */
export function finite(method: string, result: number, path: string): number {
  if (!Number.isFinite(result)) throw new RangeError(`\`${method}\` gives no finite number at \`${path}\``);
  return result === 0 ? 0 : result;
}

function describe(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'an object';
  return `a ${typeof value}`;
}
