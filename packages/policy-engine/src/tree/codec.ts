import type { Located } from '../ast/valid/located';
import type { JsonValue } from '../ast/value-types';
import type { SourceLocation } from '../diagnostics';
import { fieldReader } from './field-reader';
import { TreeDamage, within } from './tree-damage';
import type { TreeScope } from './tree-scope';

/**
 * Codecs between the checked tree in memory and its JSON form, built from descriptions: each combinator both reads
 * (checking every value, throwing `TreeDamage` at the first one that is off) and writes, so the two directions
 * cannot drift, and the type of what a description reads is derived from it and checked against the tree's types.
 */
export interface Codec<T> {
  readonly read: (value: unknown, scope: TreeScope) => T;
  readonly write: (value: T) => JsonValue;
}

/** Some of the fields of one JSON object: read into the object being built, written into the JSON being built. */
export interface FieldsCodec<T> {
  readonly read: (source: JsonSource, scope: TreeScope, into: Record<string, unknown>) => void;
  readonly write: (value: T, into: JsonObject) => void;
}

export type JsonObject = { [key: string]: JsonValue };
type JsonSource = Readonly<Record<string, unknown>>;

/** Any codec, as a member of a shape (`write` takes `never` so that every codec fits). */
interface ShapeCodec {
  readonly read: (value: unknown, scope: TreeScope) => unknown;
  readonly write: (value: never) => JsonValue;
  /** The JSON key when it is not the field's name. */
  readonly key?: string;
}
type Shape = Readonly<Record<string, ShapeCodec>>;
export type Flat<T> = { readonly [K in keyof T]: T[K] };
type ShapeType<S extends Shape> = { readonly [K in keyof S]: S[K] extends Codec<infer T> ? T : never };
type FieldsType<F> = F extends FieldsCodec<infer T> ? T : never;

/** The tree carries no source locations: compile reads none, and whoever reported located problems read the XML. */
const UNLOCATED: SourceLocation = Object.freeze({ line: 0 });

export const string: Codec<string> = {
  read: (value) => {
    if (typeof value !== 'string') throw new TreeDamage('is not a string');
    return value;
  },
  write: (value) => value,
};

export const boolean: Codec<boolean> = {
  read: (value) => {
    if (typeof value !== 'boolean') throw new TreeDamage('is not a boolean');
    return value;
  },
  write: (value) => value,
};

/** A whole number in `[min, max]`. */
export function integer(min: number, max = Number.MAX_SAFE_INTEGER): Codec<number> {
  return {
    read: (value) => {
      if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
        throw new TreeDamage(`is not a whole number from ${min} to ${max}`);
      }
      return value;
    },
    write: (value) => value,
  };
}

export function oneOf<const T extends string>(values: readonly T[]): Codec<T> {
  const known: ReadonlySet<unknown> = new Set(values);
  const isOne = (value: unknown): value is T => known.has(value);
  return {
    read: (value) => {
      if (!isOne(value)) throw new TreeDamage(`is not one of ${values.map((item) => `\`${item}\``).join(', ')}`);
      return value;
    },
    write: (value) => value,
  };
}

export function nullable<T>(codec: Codec<T>): Codec<T | null> {
  return {
    read: (value, scope) => (value === null ? null : codec.read(value, scope)),
    write: (value) => (value === null ? null : codec.write(value)),
  };
}

/** A value kept in JSON as another: `decode` may refuse it by throwing `TreeDamage`. */
export function convert<J, T>(codec: Codec<J>, decode: (json: J) => T, encode: (value: T) => J): Codec<T> {
  return { read: (value, scope) => decode(codec.read(value, scope)), write: (value) => codec.write(encode(value)) };
}

/** `codec`, and then a check across its fields: `check` names the field it refuses (null: the whole) and why. */
export function refine<T>(codec: Codec<T>, check: (value: T) => { at: string | null; problem: string } | null): Codec<T> {
  return {
    read: (value, scope) => {
      const read = codec.read(value, scope);
      const refused = check(read);
      if (refused === null) return read;
      const damage = new TreeDamage(refused.problem);
      throw refused.at === null ? damage : damage.within(refused.at);
    },
    write: codec.write,
  };
}

/** A field kept under another key in JSON. */
export function renamed<T>(key: string, codec: Codec<T>): Codec<T> & { readonly key: string } {
  return { ...codec, key };
}

/** The fields of one object, in this order, each read and written by its codec. */
export function fields<S extends Shape>(shape: S): FieldsCodec<ShapeType<S>> {
  const entries = Object.entries(shape).map(([name, codec]) => ({ name, key: codec.key ?? name, codec: codec as unknown as Codec<unknown> }));
  return {
    read: fieldReader(entries),
    write: (value, into) => {
      // Each codec writes the field it read.
      const named = value as Readonly<Record<string, unknown>>;
      for (const { name, key, codec } of entries) into[key] = codec.write(named[name]);
    },
  };
}

/** The fields of `first`, then those of `second`. */
export function sequence<A, B>(first: FieldsCodec<A>, second: FieldsCodec<B>): FieldsCodec<Flat<A & B>> {
  return {
    read: (source, scope, into) => {
      first.read(source, scope, into);
      second.read(source, scope, into);
    },
    write: (value, into) => {
      first.write(value, into);
      second.write(value, into);
    },
  };
}

/** A node of the validated tree: its fields, and the location it has in memory but not in JSON. */
export function located<T>(codec: FieldsCodec<T>): FieldsCodec<Flat<T & Located>> {
  return {
    read: (source, scope, into) => {
      codec.read(source, scope, into);
      into.location = UNLOCATED;
    },
    write: codec.write,
  };
}

/** One JSON object of these fields. */
export function object<T>(codec: FieldsCodec<T>): Codec<T> {
  return {
    read: (value, scope) => {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new TreeDamage('is not an object');
      const into: Record<string, unknown> = {};
      codec.read(value as JsonSource, scope, into);
      // `into` now holds every field the codec describes, each read by its own codec.
      return into as T;
    },
    write: (value) => {
      const into: JsonObject = {};
      codec.write(value, into);
      return into;
    },
  };
}

type Variant<C, K extends keyof C> = Flat<{ readonly kind: K } & FieldsType<C[K]>>;

/**
 * A union told apart by its `kind`, written first. An unknown kind is refused with `unknown(kind)` when given
 * (then a kind that is no string is refused as such), else with the list of kinds.
 */
export function variants<C extends Readonly<Record<string, FieldsCodec<never>>>>(
  cases: C,
  unknown?: (kind: string) => string,
): FieldsCodec<{ [K in keyof C & string]: Variant<C, K> }[keyof C & string]> {
  const byKind = new Map<unknown, FieldsCodec<unknown>>(Object.entries(cases) as Array<[string, FieldsCodec<unknown>]>);
  const listed = `is not one of ${Object.keys(cases).map((kind) => `\`${kind}\``).join(', ')}`;
  return {
    read: (source, scope, into) => {
      const kind = Object.hasOwn(source, 'kind') ? source.kind : undefined;
      const codec = byKind.get(kind);
      if (codec === undefined) {
        const problem = unknown === undefined ? listed : typeof kind === 'string' ? unknown(kind) : 'is not a string';
        throw new TreeDamage(problem).within('kind');
      }
      into.kind = kind;
      codec.read(source, scope, into);
    },
    write: (value, into) => {
      into.kind = value.kind;
      // A value of this union has one of its kinds.
      (byKind.get(value.kind) as FieldsCodec<unknown>).write(value, into);
    },
  };
}

/** One set of fields per value of the `key` field, which is written first (`perType` in the tree's types). */
export function choice<K extends string, V extends string, T>(key: K, values: readonly V[], build: (value: V) => FieldsCodec<T>): FieldsCodec<Flat<{ readonly [P in K]: V } & T>> {
  const byValue = new Map<unknown, FieldsCodec<T>>(values.map((value) => [value, build(value)]));
  const refusal = `is not one of ${values.map((value) => `\`${value}\``).join(', ')}`;
  return {
    read: (source, scope, into) => {
      const value = Object.hasOwn(source, key) ? source[key] : undefined;
      const codec = byValue.get(value);
      if (codec === undefined) throw new TreeDamage(refusal).within(key);
      into[key] = value;
      codec.read(source, scope, into);
    },
    write: (value, into) => {
      const chosen = value[key];
      into[key] = chosen;
      // `chosen` is one of `values`: the type says so.
      (byValue.get(chosen) as FieldsCodec<T>).write(value, into);
    },
  };
}

/**
 * Reads a list of at least `min` items, each by `readItem`; a hole (an array built in memory, never parsed JSON) is
 * refused: `map` would skip it and keep it, and the compiled program would get an operand that is not there.
 */
export function readList<T>(value: unknown, min: number, readItem: (item: unknown, index: number) => T): T[] {
  if (!Array.isArray(value)) throw new TreeDamage('is not a list');
  if (value.length < min) throw new TreeDamage(`needs at least ${min} item${min === 1 ? '' : 's'}`);
  const items: T[] = [];
  for (let index = 0; index < value.length; index += 1) {
    if (!(index in value)) throw new TreeDamage('is missing').within(index);
    try {
      items.push(readItem(value[index], index));
    } catch (error) {
      throw within(error, index);
    }
  }
  return items;
}

export function list<T>(codec: Codec<T>, min = 0): Codec<readonly T[]> {
  return { read: (value, scope) => readList(value, min, (item) => codec.read(item, scope)), write: (value) => value.map(codec.write) };
}

/** A list whose first item is read by `head`, the others by `tail`. */
export function headTail<H, T>(head: Codec<H>, tail: Codec<T>): Codec<readonly [H, ...T[]]> {
  return {
    read: (value, scope) => {
      const items = readList(value, 1, (item, index): H | T => (index === 0 ? head.read(item, scope) : tail.read(item, scope)));
      // At least one item, the first read by `head`.
      return items as [H, ...T[]];
    },
    write: ([first, ...rest]) => [head.write(first), ...rest.map(tail.write)],
  };
}

/** Two items at least (equals). */
export function atLeastTwo<T>(codec: Codec<T>): Codec<readonly [T, T, ...T[]]> {
  return {
    // At least two items.
    read: (value, scope) => readList(value, 2, (item) => codec.read(item, scope)) as [T, T, ...T[]],
    write: (value) => value.map(codec.write),
  };
}
