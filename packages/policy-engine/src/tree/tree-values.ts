import type { JSONPathQuery } from 'json-p3';
import type { RE2JS } from 're2js';
import type { ValidJsonPath } from '../ast/valid/located';
import type { JsonValue, ValueType } from '../ast/value-types';
import { readJsonPath } from '../parse/json-path';
import { readRegex } from '../parse/regex';
import { convert, string, type Codec } from './codec';
import { TreeDamage } from './tree-damage';

/**
 * Regexes and JSONPath queries are compiled from their text when a tree is read. Both are immutable once compiled,
 * and deployed policies repeat the same few paths and patterns thousands of times, so one compiled value per text
 * serves every policy: faster to load and one object in memory instead of thousands. Bounded, since texts come from
 * policies; when full it starts again.
 */
const CACHE_LIMIT = 4096;
const queries = new Map<string, JSONPathQuery>();
const regexes = new Map<string, RE2JS>();

function remembered<T>(cache: Map<string, T>, text: string, compile: () => T): T {
  const known = cache.get(text);
  if (known !== undefined) return known;
  const value = compile();
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(text, value);
  return value;
}

/** A JSONPath query, kept as its text. */
export const JSON_PATH: Codec<ValidJsonPath> = convert(
  string,
  (text) => {
    const query = remembered(queries, text, () => {
      const read = readJsonPath(text);
      if (!read.ok) throw new TreeDamage(read.problem);
      return read.value;
    });
    return { text, query };
  },
  (path) => path.text,
);

/** A regular expression, kept as its pattern. */
export const REGEX: Codec<RE2JS> = convert(
  string,
  (text) =>
    remembered(regexes, text, () => {
      const read = readRegex(text);
      if (!read.ok) throw new TreeDamage(read.problem);
      return read.value;
    }),
  (regex) => regex.pattern(),
);

/** JSON literals nest at most this deep in a policy (the literal reader's limit), with room to spare. */
const MAX_LITERAL_DEPTH = 100;

/** A literal of `type`, as the literal reader would have produced it; JSON as it is. */
export function literal(type: ValueType): Codec<JsonValue> {
  return { read: (value) => literalOf(type, value), write: (value) => value };
}

function literalOf(type: ValueType, value: unknown): JsonValue {
  const fits =
    (type === 'string' && typeof value === 'string') ||
    (type === 'number' && typeof value === 'number' && Number.isFinite(value)) ||
    (type === 'boolean' && typeof value === 'boolean') ||
    (type === 'object' && isPlainObject(value)) ||
    (type === 'list' && Array.isArray(value));
  if (!fits || !isJson(value, 0)) throw new TreeDamage(`is not a ${type} literal`);
  return value as JsonValue;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isJson(value: unknown, depth: number): boolean {
  if (depth > MAX_LITERAL_DEPTH) return false;
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  // `every` skips holes, which no JSON text has: a list literal with one is not a literal.
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index += 1) if (!(index in value) || !isJson(value[index], depth + 1)) return false;
    return true;
  }
  if (!isPlainObject(value) || Object.getPrototypeOf(value) !== Object.prototype) return false;
  return Object.values(value).every((item) => isJson(item, depth + 1));
}
