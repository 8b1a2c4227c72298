import { within } from './tree-damage';
import type { TreeScope } from './tree-scope';

/** Reads the fields of one shape from a JSON object into the object being built. */
export type FieldReader = (source: Readonly<Record<string, unknown>>, scope: TreeScope, into: Record<string, unknown>) => void;

/** One field: `name` in memory, read by `codec` from `key` in JSON. */
export interface Field {
  readonly name: string;
  readonly key: string;
  readonly codec: { readonly read: (value: unknown, scope: TreeScope) => unknown };
}

/**
 * The reader of one shape's fields, each from its key's own property in JSON (or nothing); damage is placed at the
 * key being read.
 *
 * Where the engine allows it, the reader is a function generated for the shape, with its keys written out. A loop
 * over keys makes one property access serve every shape of the tree, which the engine cannot cache; a reader per
 * shape reads 10,000 trees faster than the hand-written reader the codec replaced, the loop slower
 * (`bench/tree-read.mjs`). The generated text holds only the shape's own names, checked to be plain identifiers,
 * never a value from a tree. Where code generation is disallowed (`--disallow-code-generation-from-strings`), the
 * loop reads the same.
 */
export function fieldReader(fields: readonly Field[], generate = true): FieldReader {
  return (generate ? generated(fields) : null) ?? looped(fields);
}

const IDENTIFIER = /^[A-Za-z][A-Za-z0-9]*$/;

function generated(fields: readonly Field[]): FieldReader | null {
  if (!fields.every(({ name, key }) => IDENTIFIER.test(name) && IDENTIFIER.test(key))) return null;
  const steps = fields.map(
    ({ name, key }, index) => `step = '${key}'; into.${name} = codecs[${index}].read(hasOwn.call(source, '${key}') ? source.${key} : undefined, scope);`,
  );
  const text = `return function readFields(source, scope, into) {
  let step = '';
  try {
    ${steps.join('\n    ')}
  } catch (error) {
    throw within(error, step);
  }
};`;
  try {
    // The text is built from the shape's own identifiers only (checked above), never from a tree.
    const make = new Function('codecs', 'hasOwn', 'within', text) as (codecs: ReadonlyArray<Field['codec']>, hasOwn: typeof Object.prototype.hasOwnProperty, place: typeof within) => FieldReader;
    return make(
      fields.map((field) => field.codec),
      Object.prototype.hasOwnProperty,
      within,
    );
  } catch {
    return null;
  }
}

function looped(fields: readonly Field[]): FieldReader {
  return (source, scope, into) => {
    for (const { name, key, codec } of fields) {
      try {
        into[name] = codec.read(Object.hasOwn(source, key) ? source[key] : undefined, scope);
      } catch (error) {
        throw within(error, key);
      }
    }
  };
}
