import type { JSONPathQuery } from 'json-p3';
import type { RE2JS } from 're2js';
import type { ValidJsonPath } from '../ast/valid/located';
import type { JsonValue, ValueType } from '../ast/value-types';
import { readJsonPath } from '../parse/json-path';
import { readRegex } from '../parse/regex';
import { TreeDamage, type TreePath } from './tree-damage';

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

export function jsonPathFrom(text: string, where: TreePath): ValidJsonPath {
  const query = remembered(queries, text, () => {
    const read = readJsonPath(text);
    if (!read.ok) throw new TreeDamage(where, read.problem);
    return read.value;
  });
  return { text, query };
}

export function regexFrom(text: string, where: TreePath): RE2JS {
  return remembered(regexes, text, () => {
    const read = readRegex(text);
    if (!read.ok) throw new TreeDamage(where, read.problem);
    return read.value;
  });
}

/** JSON literals nest at most this deep in a policy (the literal reader's limit), with room to spare. */
const MAX_LITERAL_DEPTH = 100;

/** `value` as a literal of `type`, as the literal reader would have produced it. */
export function literalOf(type: ValueType, value: unknown, where: TreePath): JsonValue {
  const fits =
    (type === 'string' && typeof value === 'string') ||
    (type === 'number' && typeof value === 'number' && Number.isFinite(value)) ||
    (type === 'boolean' && typeof value === 'boolean') ||
    (type === 'object' && isPlainObject(value)) ||
    (type === 'list' && Array.isArray(value));
  if (!fits || !isJson(value, 0)) throw new TreeDamage(where, `is not a ${type} literal`);
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
