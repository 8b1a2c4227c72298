import { MAX_EVENT_PARAMETERS, javaValue, type EventParameter } from '@custos/contracts';
import type { Shape } from './shape';
import type { PathSegment } from './yaml-source';

/**
 * The short form of an event's parameters in test and eval files: a mapping of names to plain values,
 * `parameters: { user: { id: ann }, amount: 3 }`, typed as the SDK's `event()` types them (string → java.lang.String,
 * number → java.lang.Double, boolean → java.lang.Boolean, mapping → java.lang.Object and list → java.util.ArrayList,
 * both `isComplex: true`, null → java.lang.Object). The wire form, a list of `{name, value: {value, type, isComplex}}`,
 * stays for values that need another type name.
 */
export function isShortParameters(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function readShortParameters(value: Record<string, unknown>, path: readonly PathSegment[], shape: Shape): EventParameter[] | undefined {
  const entries = Object.entries(value);
  if (entries.length > MAX_EVENT_PARAMETERS) return shape.fail(path, `has more than ${MAX_EVENT_PARAMETERS} parameters`);
  const parameters: EventParameter[] = [];
  for (const [name, item] of entries) {
    if (name === '') {
      shape.fail([...path, name], 'a parameter name must not be empty');
      continue;
    }
    if (item === undefined) {
      shape.fail([...path, name], 'needs a value');
      continue;
    }
    parameters.push({ name, value: javaValue(item) });
  }
  return parameters;
}
