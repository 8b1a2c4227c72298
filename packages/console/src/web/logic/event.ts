import type { Event, EventParameter, PepInterfaceDescription } from '@custos/contracts';

/** One parameter as the playground's form holds it: the value is JSON text, or plain text for a string. */
export interface ParameterField {
  name: string;
  type: string;
  text: string;
}

/** The split action id of `urn:action:<scope>:<action>`, or undefined for anything else. */
export function actionIdOf(urn: string): { scope: string; action: string } | undefined {
  const match = /^urn:action:([a-z0-9._-]+):([A-Za-z0-9._-]+)$/.exec(urn.trim());
  return match?.[1] !== undefined && match[2] !== undefined ? { scope: match[1], action: match[2] } : undefined;
}

/**
 * Reads a field's text as JSON when it is JSON (`42`, `true`, `{"a":1}`, `"text"`), else as the plain string the
 * user typed, so `Ann` needs no quotes. Objects and arrays are complex values (api.md §3).
 */
export function parameterOf(field: ParameterField): EventParameter {
  let value: unknown = field.text;
  const trimmed = field.text.trim();
  if (trimmed !== '') {
    try {
      value = JSON.parse(trimmed) as unknown;
    } catch {
      value = field.text;
    }
  }
  const isComplex = typeof value === 'object' && value !== null;
  const type = field.type.trim() !== '' ? field.type.trim() : defaultType(value);
  return { name: field.name, value: { value, type, isComplex } };
}

function defaultType(value: unknown): string {
  if (typeof value === 'number') return 'java.lang.Double';
  if (typeof value === 'boolean') return 'java.lang.Boolean';
  if (Array.isArray(value)) return 'java.util.ArrayList';
  if (typeof value === 'object' && value !== null) return 'java.lang.Object';
  return 'java.lang.String';
}

/** An event for `urn:action:…` with the fields as parameters (empty names left out), stamped `timestamp`. */
export function buildEvent(actionUrn: string, fields: readonly ParameterField[], timestamp: number): Event {
  const actionId = actionIdOf(actionUrn);
  if (actionId === undefined) throw new Error(`\`${actionUrn}\` is not an action; expected \`urn:action:<scope>:<action>\``);
  return { actionId, timestamp, parameters: fields.filter((f) => f.name.trim() !== '').map(parameterOf) };
}

/** The playground's form for a PEP interface: its method as the action and one empty field per parameter. */
export function fieldsForInterface(description: PepInterfaceDescription): { action: string; fields: ParameterField[] } {
  return {
    action: description.methodName,
    fields: description.parameters.map((p) => ({ name: p.name, type: p.type, text: '' })),
  };
}
