/**
 * The `values` of an explanation (one record per comparison, function or arithmetic element evaluated) as text:
 * `equals(event `user` at `$.id` = "alice", "bob") → false`. Works on the engine's shape and on the wire's, which
 * are the same JSON, and tolerates fields it does not know.
 */

type Json = Record<string, unknown>;

const asObject = (value: unknown): Json => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : {});
const asArray = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const show = (value: unknown): string => (value === undefined ? 'undefined' : JSON.stringify(value));

function operandText(operand: unknown): string {
  const o = asObject(operand);
  const source = typeof o.source === 'string' ? o.source : '?';
  if (typeof o.error === 'string') return `${source} failed: ${o.error}`;
  const value = `${show(o.value)}${o.truncated === true ? ' (cut short)' : ''}`;
  // A constant is its value; anything else says where the value came from.
  return source === 'constant' ? value : `${source} = ${value}`;
}

/** One record as one line, without indentation. */
export function valueText(record: unknown): string {
  const r = asObject(record);
  const result = typeof r.error === 'string' ? `failed: ${r.error}` : show(r.value);
  return `${typeof r.element === 'string' ? r.element : '?'}(${asArray(r.operands).map(operandText).join(', ')}) → ${result}`;
}

/** The records that belong to a condition (by position: 0 the `if`), or to none with `null`. */
export function valuesOf(values: unknown, condition: number | null): Json[] {
  return asArray(values)
    .map(asObject)
    .filter((record) => (record.condition ?? null) === condition);
}

/** How deep a record sits among the records (0: outermost). */
export const depthOf = (record: unknown): number => {
  const depth = asObject(record).depth;
  return typeof depth === 'number' && depth > 0 ? depth : 0;
};
