import { closestName } from '@custos/policy-engine';
import { formatPath, type PathSegment, type Position } from './yaml-source';

export interface ShapeProblem {
  /** `tests[2].expect.allowed` */
  path: string;
  message: string;
  line?: number;
  column?: number;
}

/**
 * Checks the shape of plain values read from YAML, collecting every problem with the path inside the file and
 * where it is written. Each reader returns undefined for a value it refused, so callers go on with the rest.
 */
export class Shape {
  readonly problems: ShapeProblem[] = [];

  constructor(private readonly locate: (path: readonly PathSegment[]) => Position | undefined) {}

  fail(path: readonly PathSegment[], message: string): undefined {
    const position = this.locate(path);
    this.problems.push({ path: formatPath(path), message, ...(position === undefined ? {} : position) });
    return undefined;
  }

  /** A mapping with only the keys allowed; the required ones must be there. */
  record(value: unknown, path: readonly PathSegment[], keys: { required?: readonly string[]; optional?: readonly string[] }): Record<string, unknown> | undefined {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return this.fail(path, `must be a mapping, found ${describe(value)}`);
    const record = value as Record<string, unknown>;
    const required = keys.required ?? [];
    const allowed = new Set([...required, ...(keys.optional ?? [])]);
    // A misspelt key is reported once, and read on as the key it was meant to be, so nothing follows from it.
    const meant: Record<string, unknown> = {};
    for (const key of Object.keys(record)) {
      if (allowed.has(key)) continue;
      const closest = closestName(key, [...allowed].filter((name) => !(name in record) && !(name in meant)));
      if (closest !== null) meant[closest] = record[key];
      const hint = closest === null ? `expected ${[...allowed].map((k) => `\`${k}\``).join(', ')}` : `did you mean \`${closest}\`?`;
      this.fail([...path, key], `unknown key \`${key}\`; ${hint}`);
    }
    for (const key of required) if (!(key in record) && !(key in meant)) this.fail(path, `needs \`${key}\``);
    return Object.keys(meant).length === 0 ? record : { ...record, ...meant };
  }

  list(value: unknown, path: readonly PathSegment[]): unknown[] | undefined {
    if (!Array.isArray(value)) return this.fail(path, `must be a list, found ${describe(value)}`);
    return value as unknown[];
  }

  string(value: unknown, path: readonly PathSegment[], options: { nonEmpty?: boolean; pattern?: RegExp; hint?: string } = {}): string | undefined {
    if (typeof value !== 'string') return this.fail(path, `must be a string, found ${describe(value)}`);
    if (options.nonEmpty === true && value === '') return this.fail(path, 'must not be empty');
    if (options.pattern !== undefined && !options.pattern.test(value)) {
      return this.fail(path, `\`${value.slice(0, 80)}\` ${options.hint ?? `does not match \`${options.pattern.source}\``}`);
    }
    return value;
  }

  boolean(value: unknown, path: readonly PathSegment[]): boolean | undefined {
    if (typeof value !== 'boolean') return this.fail(path, `must be true or false, found ${describe(value)}`);
    return value;
  }

  integer(value: unknown, path: readonly PathSegment[], minimum = 0): number | undefined {
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < minimum) {
      return this.fail(path, `must be an integer of at least ${minimum}, found ${describe(value)}`);
    }
    return value;
  }

  oneOf<T extends string>(value: unknown, path: readonly PathSegment[], choices: readonly T[]): T | undefined {
    if (typeof value !== 'string' || !(choices as readonly string[]).includes(value)) {
      return this.fail(path, `must be one of ${choices.map((c) => `\`${c}\``).join(', ')}, found ${describe(value)}`);
    }
    return value as T;
  }
}

/** A value for a message: its YAML kind and, for scalars, the value itself. */
export function describe(value: unknown): string {
  if (value === null || value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'a list';
  switch (typeof value) {
    case 'object':
      return 'a mapping';
    case 'string':
      return `the string \`${value.slice(0, 60)}\``;
    case 'number':
      return `the number \`${value}\``;
    case 'boolean':
      return `\`${value}\``;
    default:
      return typeof value;
  }
}
