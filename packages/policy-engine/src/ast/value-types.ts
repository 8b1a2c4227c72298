/** The five value types of policy-language.md §4. */
export const VALUE_TYPES = ['string', 'number', 'boolean', 'object', 'list'] as const;
export type ValueType = (typeof VALUE_TYPES)[number];

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** The language type of a runtime value, or a description of why it has none. */
export function typeOfValue(value: unknown): ValueType | 'null' | 'unsupported' {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return 'string';
  if (typeof value === 'number') return Number.isFinite(value) ? 'number' : 'unsupported';
  if (typeof value === 'boolean') return 'boolean';
  if (Array.isArray(value)) return 'list';
  if (typeof value === 'object') return 'object';
  return 'unsupported';
}
