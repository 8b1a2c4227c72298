import type { AuthorizationDecision } from '@custos/contracts';
import { MalformedDecisionError } from './errors';
import { isJsonObject, ownValue, type JsonObject } from './json-value';

/** The pdp's answer and the revision of the policy set that decided (`Policy-Revision`; null if absent). */
export interface Decision extends AuthorizationDecision {
  policyRevision: number | null;
}

/** Reads a 200 answer of `POST /event`; anything not shaped like an AuthorizationDecision is malformed. */
export function readDecision(text: string, revisionHeader: string | null): Decision {
  return decisionFrom(parseAnswer(text), readRevision(revisionHeader));
}

/** The answer's JSON; text that does not parse is a malformed decision. */
export function parseAnswer(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new MalformedDecisionError('the decision is not JSON', { cause: error });
  }
}

/** The `Policy-Revision` header as a number; null when absent, malformed when it is not a revision. */
export function readRevision(revisionHeader: string | null): number | null {
  const revision = revisionHeader === null ? null : Number(revisionHeader);
  if (revision !== null && !(Number.isSafeInteger(revision) && revision >= 0)) {
    throw new MalformedDecisionError('the answer is not an authorization decision', { cause: new TypeError(`header \`Policy-Revision\` is \`${revisionHeader}\``) });
  }
  return revision;
}

/** One parsed AuthorizationDecision with its revision; `where` (`decisions[2]: `) prefixes a shape problem. */
export function decisionFrom(body: unknown, revision: number | null, where = ''): Decision {
  const problem = shapeProblem(body);
  if (problem !== undefined || !isJsonObject(body)) {
    throw new MalformedDecisionError('the answer is not an authorization decision', { cause: new TypeError(`${where}${problem ?? 'not an object'}`) });
  }
  const decision = body as unknown as AuthorizationDecision;
  return { id: decision.id, eventAllowed: decision.eventAllowed, modifiers: decision.modifiers, delay: decision.delay, policyRevision: revision };
}

/** What is wrong with the answer's shape, or undefined. */
function shapeProblem(body: unknown): string | undefined {
  if (!isJsonObject(body)) return 'the answer is not an object';
  const id = ownValue(body, 'id');
  if (!isJsonObject(id) || typeof ownValue(id, 'identifier') !== 'string') return '`id.identifier` must be a string';
  if (typeof ownValue(body, 'eventAllowed') !== 'boolean') return '`eventAllowed` must be a boolean';
  const delay = ownValue(body, 'delay');
  if (typeof delay !== 'number' || !Number.isFinite(delay) || delay < 0) return '`delay` must be a number of milliseconds, 0 or more';
  const modifiers = ownValue(body, 'modifiers');
  if (!Array.isArray(modifiers)) return '`modifiers` must be a list';
  for (const [index, modifier] of modifiers.entries()) {
    const problem = modifierProblem(modifier);
    if (problem !== undefined) return `\`modifiers[${index}]\`: ${problem}`;
  }
  return undefined;
}

/** What is wrong with one modifier as the pdp sends it, or undefined. */
export function modifierProblem(modifier: unknown): string | undefined {
  if (!isJsonObject(modifier)) return 'must be an object';
  if (typeof ownValue(modifier, 'name') !== 'string') return '`name` must be a string';
  if (typeof ownValue(modifier, 'expression') !== 'string') return '`expression` must be a string';
  const engines = ownValue(modifier, 'engine');
  if (!Array.isArray(engines) || engines.length !== 1) return '`engine` must hold exactly one engine';
  const engine: unknown = engines[0];
  if (!isJsonObject(engine) || typeof ownValue(engine, 'method') !== 'string') return '`engine[0].method` must be a string';
  const parameters = ownValue(engine, 'parameters');
  if (!Array.isArray(parameters)) return '`engine[0].parameters` must be a list';
  for (const [index, parameter] of parameters.entries()) {
    if (!isJsonObject(parameter) || typeof ownValue(parameter, 'name') !== 'string' || !isParameterValue(ownValue(parameter, 'value'))) {
      return `\`engine[0].parameters[${index}]\` must be a named parameter value`;
    }
  }
  return undefined;
}

function isParameterValue(value: unknown): value is JsonObject {
  return (
    isJsonObject(value) &&
    Object.prototype.hasOwnProperty.call(value, 'value') &&
    typeof ownValue(value, 'type') === 'string' &&
    typeof ownValue(value, 'isComplex') === 'boolean'
  );
}
