/**
 * What one decision request may make a pdp look at. Every check over a request body walks the JSON it was given,
 * so the work of a request is the number of values it visits: without a bound, a check repeated per item (a wide
 * AuthZEN default walked once per evaluation) multiplies a 4 MiB body into seconds of one event loop.
 */

/** Events over 1 MiB are refused (api.md §5): the body of `POST /event`, and each item of a batch alike. */
export const MAX_EVENT_BYTES = 1024 * 1024;

/**
 * Most JSON values (objects, arrays, strings, numbers, literals) the checks of one decision request visit, decoded
 * complex parameter text included. A 4 MiB batch of ordinary events holds a few hundred thousand; a 1 MiB event of
 * `[0,0,…]` about half a million.
 */
export const MAX_REQUEST_VALUES = 1_000_000;

/** The values still to spend on one request; shared by every check of it, so repeated walks add up. */
export class WorkBudget {
  private left: number;

  constructor(readonly limit: number = MAX_REQUEST_VALUES) {
    this.left = limit;
  }

  /** Takes `values` from the budget; false once it is spent (and from then on). */
  spend(values: number): boolean {
    this.left -= values;
    return this.left >= 0;
  }

  get spent(): number {
    return this.limit - this.left;
  }

  get exhausted(): boolean {
    return this.left < 0;
  }
}

/** What one walk over a JSON value found. */
export interface WalkResult {
  /** Its size as compact JSON in UTF-8 (escapes counted as the character they stand for); only when measured. */
  bytes: number;
  /** It nests arrays and objects deeper than `maxDepth`. */
  tooDeep: boolean;
  /** How deeply it nests arrays and objects, as far as the walk went (a scalar is 0). */
  nesting: number;
  /** It is larger than `maxBytes` (the walk stopped there). */
  tooLarge: boolean;
  /** The budget ran out during the walk (the walk stopped there). */
  exhausted: boolean;
}

export interface WalkOptions {
  budget: WorkBudget;
  /** Nesting bound of arrays and objects: a scalar is depth 0, `[]` depth 1. */
  maxDepth?: number;
  /** Measure the size, stopping once it is past this many bytes. */
  maxBytes?: number;
}

const NON_ASCII = /[\u0080-\uffff]/;

/** UTF-8 bytes of a string: its length when it is ASCII (a native scan), else counted per code unit. */
export function utf8Length(text: string): number {
  if (!NON_ASCII.test(text)) return text.length;
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    // A surrogate pair is 4 bytes, 2 per half; a lone surrogate JSON writes as an escape, at least as long.
    bytes += code < 0x80 ? 1 : code < 0x800 || (code >= 0xd800 && code < 0xe000) ? 2 : 3;
  }
  return bytes;
}

function numberLength(value: number): number {
  if (Number.isInteger(value) && Math.abs(value) < 1e15) return value === 0 ? 1 : Math.floor(Math.log10(Math.abs(value))) + 1 + (value < 0 ? 1 : 0);
  return String(value).length;
}

/** Compact JSON bytes of a string, number, boolean or null (undefined, never in parsed JSON, as null). */
function scalarLength(value: unknown): number {
  if (typeof value === 'string') return utf8Length(value) + 2;
  if (typeof value === 'number') return numberLength(value);
  if (typeof value === 'boolean') return value ? 4 : 5;
  return 4;
}

/**
 * One iterative walk over a parsed JSON value (no recursion: depth cannot overflow the stack), visiting each value
 * once and charging it to the budget; it stops as soon as the value is too deep, too large or the budget is spent.
 * The size is that of the value written compactly: what any body holding it takes at least, so an item that fits
 * the single-call limit on the wire fits it here too.
 */
export function walkJson(root: unknown, options: WalkOptions): WalkResult {
  const { budget } = options;
  const maxDepth = options.maxDepth ?? Infinity;
  const maxBytes = options.maxBytes;
  const measure = maxBytes !== undefined;
  const result: WalkResult = { bytes: 0, tooDeep: false, nesting: 0, tooLarge: false, exhausted: false };
  if (typeof root !== 'object' || root === null) {
    // Most parameter values are scalars: no stack to set up.
    if (measure) result.bytes = scalarLength(root);
    result.tooLarge = measure && result.bytes > maxBytes;
    result.exhausted = !budget.spend(1);
    return result;
  }
  const values: unknown[] = [root];
  const depths: number[] = [0];
  let visited = 0;
  while (values.length > 0) {
    const value = values.pop();
    const depth = depths.pop() ?? 0;
    visited += 1;
    // Charged in steps, so the common small value costs one call.
    if (visited === 1024) {
      if (!budget.spend(visited)) {
        result.exhausted = true;
        return result;
      }
      visited = 0;
    }
    if (typeof value === 'object' && value !== null) {
      if (depth + 1 > maxDepth) {
        result.tooDeep = true;
        break;
      }
      if (depth + 1 > result.nesting) result.nesting = depth + 1;
      if (Array.isArray(value)) {
        if (measure) result.bytes += 2 + Math.max(0, value.length - 1);
        for (const child of value as unknown[]) {
          values.push(child);
          depths.push(depth + 1);
        }
      } else {
        const keys = Object.keys(value);
        if (measure) result.bytes += 2 + Math.max(0, keys.length - 1);
        for (const key of keys) {
          if (measure) {
            result.bytes += utf8Length(key) + 3;
            // A wide object past the limit stops here, not after all of its keys.
            if (result.bytes > maxBytes) {
              result.tooLarge = true;
              budget.spend(visited);
              return result;
            }
          }
          values.push((value as Record<string, unknown>)[key]);
          depths.push(depth + 1);
        }
      }
    } else if (measure) {
      result.bytes += scalarLength(value);
    }
    if (measure && result.bytes > maxBytes) {
      result.tooLarge = true;
      break;
    }
  }
  if (!budget.spend(visited)) result.exhausted = true;
  return result;
}
