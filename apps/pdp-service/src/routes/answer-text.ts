import type { AuthorizationDecision, Modifier } from '@custos/contracts';
import { jsonNumber, jsonString, lastJsonString } from '../decision/json-text';

/**
 * The JSON text of a decision's answer (`AuthorizationDecision`), exactly as JSON.stringify writes it, written member
 * by member: the members are fixed and nearly every string is an id, a URN or a Java type name that needs no
 * escaping. JSON.stringify walking the answer's objects was the largest piece of JavaScript left on POST /event's
 * path (measured: several times this). The answer is one made by contracts (`toAuthorizationDecision`), whose objects
 * hold their members in the wire type's order; a member missing or of another type hands the answer to JSON.stringify
 * whole, so the text is always JSON.stringify's (test: answer-text.test.ts, a property test against JSON.stringify).
 */
export function answerText(answer: AuthorizationDecision): string {
  const id = answer.id;
  const modifiers = answer.modifiers;
  if (
    typeof id !== 'object' ||
    id === null ||
    typeof id.identifier !== 'string' ||
    typeof answer.eventAllowed !== 'boolean' ||
    !Array.isArray(modifiers) ||
    typeof answer.delay !== 'number'
  ) {
    return JSON.stringify(answer);
  }
  let list = '[';
  for (let i = 0; i < modifiers.length; i++) {
    const text = modifierText(modifiers[i] as Modifier);
    if (text === undefined) return JSON.stringify(answer);
    list += i === 0 ? text : `,${text}`;
  }
  return `{"id":{"identifier":${jsonString(id.identifier)}},"eventAllowed":${answer.eventAllowed},"modifiers":${list}],"delay":${jsonNumber(answer.delay)}}`;
}

// The members that repeat from answer to answer (a policy's modifier is the same in each), each with its last text.
const nameText = lastJsonString();
const expressionText = lastJsonString();
const methodText = lastJsonString();
const parameterNameText = lastJsonString();
const typeText = lastJsonString();

/** One modifier's text; undefined when it is not of the wire shape (then the caller uses JSON.stringify). */
function modifierText(modifier: Modifier): string | undefined {
  if (typeof modifier !== 'object' || modifier === null) return undefined;
  const { name, expression, engine } = modifier;
  if (typeof name !== 'string' || typeof expression !== 'string' || !Array.isArray(engine)) return undefined;
  let engines = '[';
  for (let e = 0; e < engine.length; e++) {
    const step = engine[e];
    if (typeof step !== 'object' || step === null) return undefined;
    const { method, parameters } = step;
    if (typeof method !== 'string' || !Array.isArray(parameters)) return undefined;
    let list = '[';
    for (let p = 0; p < parameters.length; p++) {
      const parameter = parameters[p];
      if (typeof parameter !== 'object' || parameter === null) return undefined;
      const { name: parameterName, value } = parameter;
      if (typeof parameterName !== 'string' || typeof value !== 'object' || value === null) return undefined;
      const { value: raw, type, isComplex } = value;
      if (typeof type !== 'string' || typeof isComplex !== 'boolean') return undefined;
      const rawText = valueText(raw);
      if (rawText === undefined) return undefined;
      const text = `{"name":${parameterNameText(parameterName)},"value":{"value":${rawText},"type":${typeText(type)},"isComplex":${isComplex}}}`;
      list += p === 0 ? text : `,${text}`;
    }
    const text = `{"method":${methodText(method)},"parameters":${list}]}`;
    engines += e === 0 ? text : `,${text}`;
  }
  return `{"name":${nameText(name)},"expression":${expressionText(expression)},"engine":${engines}]}`;
}

/** A parameter's value: strings, numbers and booleans directly, JSON values through JSON.stringify; undefined for anything else. */
function valueText(value: unknown): string | undefined {
  switch (typeof value) {
    case 'string':
      return jsonString(value);
    case 'number':
      return jsonNumber(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object':
      return JSON.stringify(value);
    default:
      return undefined;
  }
}
