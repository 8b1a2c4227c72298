/**
 * Safe handling of JSON values that come from outside: only own properties are read, and writes define own
 * properties, so keys such as `__proto__`, `constructor` or `prototype` are plain data and never reach a prototype.
 */
export type JsonObject = Record<string, unknown>;

const hasOwn = (object: object, key: string): boolean => Object.prototype.hasOwnProperty.call(object, key);

export const isJsonObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The own property `key` of `object`, or undefined; never an inherited one. */
export function ownValue(object: JsonObject, key: string): unknown {
  return hasOwn(object, key) ? object[key] : undefined;
}

export function hasOwnKey(object: JsonObject, key: string): boolean {
  return hasOwn(object, key);
}

/** Sets an own data property; `object[key] = value` with key `__proto__` would replace the prototype instead. */
export function setOwn(object: JsonObject, key: string, value: unknown): void {
  Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true });
}

/**
 * A deep copy as JSON sees it. JSON.parse creates `__proto__` keys as own properties, so nothing in the
 * copy can reach a prototype; and the copy is exactly what the pdp is sent.
 */
export function jsonCopy<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/** The JSON kind of a value, as the language types it. */
export type JsonKind = 'string' | 'number' | 'boolean' | 'object' | 'list' | 'null';

export function kindOf(value: unknown): JsonKind {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return 'list';
  switch (typeof value) {
    case 'string':
      return 'string';
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    default:
      return 'object';
  }
}

/** JSON text with object keys sorted at every level, so equal values give equal text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (isJsonObject(value)) {
    const members = Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key])}`);
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}
