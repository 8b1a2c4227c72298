import type { Event, EventParameter, ParameterValue } from '@custos/contracts';
import { isJsonObject, jsonCopy } from './json-value';
import { javaValue } from './parameter-value';

/** A value with an explicit Java-style type name, for `event()`: `typed(user, 'com.acme.User')`. */
export class TypedValue {
  constructor(
    readonly value: unknown,
    readonly type: string,
  ) {}
}

/** `value` with the type name `type` instead of the one derived from its JSON kind. */
export function typed(value: unknown, type: string): TypedValue {
  if (typeof type !== 'string' || type === '') throw new TypeError('a type name must be a non-empty string');
  return new TypedValue(value, type);
}

export interface EventOptions {
  /** Milliseconds since the epoch; default now. */
  timestamp?: number;
}

/** The values `event()` accepts: by name in an object (own keys) or a Map. */
export type EventValues = Readonly<Record<string, unknown>> | ReadonlyMap<string, unknown>;

/** How deeply a value may nest; the pdp refuses deeper values (docs/api.md). */
export const MAX_VALUE_DEPTH = 64;

const SCOPE = /^[a-z0-9._-]+$/;
const ACTION = /^[A-Za-z0-9._-]+$/;

/**
 * An event from plain values: `event('acme', 'show-employee', { user: { id: 'u1' }, count: 3 })`. Type names
 * follow docs/api.md: string → java.lang.String, number → java.lang.Double, boolean → java.lang.Boolean,
 * object → java.lang.Object and list → java.util.ArrayList (both `isComplex: true`), null → java.lang.Object.
 * Values are copied, so changing them afterwards does not change the event. A value that JSON cannot carry
 * (undefined, a function, NaN, a Date or other class instance, a cycle) is refused with a TypeError naming it.
 */
export function event(scope: string, action: string, values: EventValues = {}, options: EventOptions = {}): Event {
  if (typeof scope !== 'string' || !SCOPE.test(scope)) throw new TypeError(`scope \`${String(scope)}\` must be lower case letters, digits, \`.\`, \`_\` or \`-\``);
  if (typeof action !== 'string' || !ACTION.test(action)) throw new TypeError(`action \`${String(action)}\` must be letters, digits, \`.\`, \`_\` or \`-\``);
  const timestamp = options.timestamp ?? Date.now();
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) throw new TypeError('the timestamp must be a whole number of milliseconds since the epoch');
  const entries = values instanceof Map ? [...(values as ReadonlyMap<string, unknown>).entries()] : Object.entries(values);
  return { actionId: { scope, action }, timestamp, parameters: entries.map(([name, value]) => parameter(name, value)) };
}

/** One named parameter; the name is data in a list, so `__proto__` is as good a name as any. */
export function parameter(name: string, value: unknown): EventParameter {
  if (typeof name !== 'string' || name === '' || name.length > 256) throw new TypeError('a parameter name must be a string of 1 to 256 characters');
  return { name, value: parameterValue(value, name) };
}

/** The typed wire value of a plain value (or of a `typed()` one). */
export function parameterValue(value: unknown, name = 'value'): ParameterValue {
  const explicit = value instanceof TypedValue ? value : undefined;
  const plain = explicit ? explicit.value : value;
  checkJson(plain, name);
  const wire = javaValue(jsonCopy(plain));
  return explicit ? { ...wire, type: explicit.type } : wire;
}

/** Refuses what JSON would silently change or drop, iteratively (a deep value must not overflow the stack). */
function checkJson(root: unknown, name: string): void {
  const pending: Array<{ value: unknown; path: string; depth: number; ancestors: ReadonlySet<object> }> = [
    { value: root, path: '$', depth: 0, ancestors: new Set() },
  ];
  while (pending.length > 0) {
    const { value, path, depth, ancestors } = pending.pop() as (typeof pending)[number];
    const where = `parameter \`${name}\` at \`${path}\``;
    if (value === null || typeof value === 'string' || typeof value === 'boolean') continue;
    if (typeof value === 'number') {
      if (!Number.isFinite(value)) throw new TypeError(`${where}: ${value} is not a JSON number`);
      continue;
    }
    if (typeof value !== 'object') throw new TypeError(`${where}: ${typeof value} is not a JSON value`);
    if (!Array.isArray(value) && !isPlainObject(value)) throw new TypeError(`${where}: only plain objects and arrays travel as JSON`);
    if (ancestors.has(value)) throw new TypeError(`${where}: the value contains itself`);
    if (depth + 1 > MAX_VALUE_DEPTH) throw new TypeError(`${where}: nested deeper than ${MAX_VALUE_DEPTH} levels`);
    const inside = new Set(ancestors).add(value);
    const children: Array<[string, unknown]> = Array.isArray(value)
      ? value.map((item, index) => [`${path}[${index}]`, item])
      : Object.keys(value).map((key) => [`${path}[${JSON.stringify(key)}]`, (value as Record<string, unknown>)[key]]);
    for (const [childPath, child] of children) pending.push({ value: child, path: childPath, depth: depth + 1, ancestors: inside });
  }
}

function isPlainObject(value: object): boolean {
  const prototype: unknown = Object.getPrototypeOf(value);
  return isJsonObject(value) && (prototype === Object.prototype || prototype === null);
}
