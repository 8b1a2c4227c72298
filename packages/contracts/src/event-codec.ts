import type { Modifier } from './schemas';
import type { AuthorizationDecision } from './schemas';
import type { AcceptedEvent, AcceptedParameterValue, EventParameter, ParameterValue } from './event';
import type { ProblemError } from './problem';
import { parseUrn } from './urns';

/**
 * Wire ↔ language conversion of events and decisions (api.md §3), shared by the pdp and the offline tools. The
 * engine's shapes are written here structurally, so contracts imports nothing: the engine's `EngineEvent`,
 * `EngineModifier` and `EngineDecision` satisfy these.
 */

/** A name and a language value (the engine's `NamedValue`). */
export interface CodecNamedValue {
  name: string;
  value: unknown;
}

/** An event as the engine reads it: action URN, time, decoded parameter values. */
export interface CodecEngineEvent {
  action: string;
  timestamp: number;
  parameters: ReadonlyMap<string, unknown>;
}

/** What a wire modifier is made from (the engine's `EngineModifier`). */
export interface CodecEngineModifier {
  eventParameter: string;
  expression: string;
  method: string;
  parameters: readonly CodecNamedValue[];
}

/** What a wire decision is made from (the engine's `EngineDecision`). */
export interface CodecEngineDecision {
  allowed: boolean;
  modifiers: readonly CodecEngineModifier[];
  delayMs: number;
}

/** The action of an event: its URN and the solution (tenant) it belongs to. */
export interface EventAction {
  urn: string;
  solution: string;
}

/** Both forms of api.md §3; undefined only when the schema was not checked first. */
export function actionOf(actionId: AcceptedEvent['actionId']): EventAction | undefined {
  if ('urn' in actionId) {
    const parsed = parseUrn('action', actionId.urn);
    return parsed ? { urn: actionId.urn, solution: parsed.solution } : undefined;
  }
  return { urn: `urn:action:${actionId.scope}:${actionId.action}`, solution: actionId.scope };
}

/** Parameter names must be unique (api.md §3): one located error per repeated name. */
export function duplicateParameters(parameters: AcceptedEvent['parameters']): ProblemError[] {
  if (!parameters || parameters.length < 2) return [];
  const first = new Map<string, number>();
  const errors: ProblemError[] = [];
  parameters.forEach((parameter, index) => {
    const seen = first.get(parameter.name);
    if (seen === undefined) first.set(parameter.name, index);
    else errors.push({ path: `parameters[${index}].name`, message: `repeats the name of parameters[${seen}]` });
  });
  return errors;
}

/**
 * The language value of a wire parameter: its JSON value, except that a complex value sent as
 * JSON text (as peers do) is parsed; text that does not parse stays a string.
 */
export function parameterValue(value: AcceptedParameterValue): unknown {
  const raw = value.value;
  if (value.isComplex === true && typeof raw === 'string') {
    try {
      return JSON.parse(raw) as unknown;
    } catch {
      return raw;
    }
  }
  return raw;
}

/**
 * How deeply a parameter value may nest (arrays and objects). Values reach answers (modifiers,
 * explanations) and JSON.stringify recurses: a 100,000-deep array, 200 kB of text, would overflow
 * the stack there. Policy literals have the same bound (policy-engine).
 */
export const MAX_VALUE_DEPTH = 64;

/** Whether `value` nests arrays and objects more than `max` levels deep; iterative, stops early. */
export function nestsDeeperThan(value: unknown, max: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const pending: Array<[object, number]> = [[value, 1]];
  for (let item = pending.pop(); item !== undefined; item = pending.pop()) {
    const [node, depth] = item;
    if (depth > max) return true;
    const children: unknown[] = Array.isArray(node) ? node : Object.values(node);
    for (const child of children) if (typeof child === 'object' && child !== null) pending.push([child, depth + 1]);
  }
  return false;
}

/** One located error per parameter of the engine event whose (decoded) value nests too deeply. */
export function overlyDeepParameters(parameters: ReadonlyMap<string, unknown>, max = MAX_VALUE_DEPTH): ProblemError[] {
  const errors: ProblemError[] = [];
  let index = 0;
  for (const value of parameters.values()) {
    if (nestsDeeperThan(value, max)) errors.push({ path: `parameters[${index}].value.value`, message: `is nested deeper than ${max} levels` });
    index += 1;
  }
  return errors;
}

export function toEngineEvent(event: AcceptedEvent, action: string): CodecEngineEvent {
  const parameters = new Map<string, unknown>();
  for (const parameter of event.parameters ?? []) parameters.set(parameter.name, parameterValue(parameter.value));
  return { action, timestamp: event.timestamp, parameters };
}

/** A language value as a typed wire value with its Java type name (api.md §3). */
export function javaValue(value: unknown): ParameterValue {
  switch (typeof value) {
    case 'string':
      return { value, type: 'java.lang.String', isComplex: false };
    case 'number':
      return { value, type: 'java.lang.Double', isComplex: false };
    case 'boolean':
      return { value, type: 'java.lang.Boolean', isComplex: false };
    case 'object':
      if (value === null) return { value: null, type: 'java.lang.Object', isComplex: false };
      if (Array.isArray(value)) return { value, type: 'java.util.ArrayList', isComplex: true };
      return { value, type: 'java.lang.Object', isComplex: true };
    default:
      // undefined (a parameter with neither value nor child) travels as null.
      return { value: null, type: 'java.lang.Object', isComplex: false };
  }
}

/** Named language values as typed wire parameters. */
export function wireParameters(parameters: readonly CodecNamedValue[]): EventParameter[] {
  return parameters.map((p) => ({ name: p.name, value: javaValue(p.value) }));
}

export function toModifier(modifier: CodecEngineModifier): Modifier {
  return {
    name: modifier.eventParameter,
    expression: modifier.expression,
    engine: [{ method: modifier.method, parameters: wireParameters(modifier.parameters) }],
  };
}

export function toAuthorizationDecision(id: string, decision: CodecEngineDecision): AuthorizationDecision {
  return {
    id: { identifier: id },
    eventAllowed: decision.allowed,
    // The engine already leaves modifiers out of an inhibited decision; this keeps the wire rule regardless.
    modifiers: decision.allowed ? decision.modifiers.map(toModifier) : [],
    delay: decision.delayMs,
  };
}
