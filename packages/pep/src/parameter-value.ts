import { javaValue, type ParameterValue } from '@custos/contracts';
import { kindOf } from './json-value';

/**
 * The value the pdp decides on: a complex value sent as JSON text is parsed, text that does not parse stays a
 * string (api.md §3), exactly as the pdp does. `fromText` says whether it was parsed from text.
 */
export function decodeParameterValue(value: ParameterValue): unknown {
  return decodeWithOrigin(value).value;
}

export function decodeWithOrigin(value: ParameterValue): { value: unknown; fromText: boolean } {
  const raw = value.value;
  if (value.isComplex === true && typeof raw === 'string') {
    try {
      return { value: JSON.parse(raw) as unknown, fromText: true };
    } catch {
      return { value: raw, fromText: false };
    }
  }
  return { value: raw, fromText: false };
}

// Typed exactly as the pdp types the values it answers with: one definition, in the contract.
export { javaValue };

/**
 * The parameter value after modification. The type name and form are kept while the value keeps its JSON kind
 * (a value sent as JSON text goes back as JSON text); when the kind changed (a `hash` of an object, a `replace`
 * with a number) the type is derived from the new value.
 */
export function encodeParameterValue(original: ParameterValue, before: { value: unknown; fromText: boolean }, after: unknown): ParameterValue {
  if (kindOf(before.value) !== kindOf(after)) return javaValue(after);
  return { ...original, value: before.fromText ? JSON.stringify(after) : after };
}
