import {
  AUTHZEN_PARAMETERS,
  AUTHZEN_PARAMETER_TYPES,
  MAX_BATCH_ITEMS,
  type AccessEvaluationRequest,
  type AccessEvaluationsRequest,
  type AuthZenDecision,
  type CompleteEvaluation,
  type CustosDecisionContext,
  type Event,
} from '@custos/contracts';
import { applyModifiers } from './apply-modifiers';
import { modifierProblem, parseAnswer, type Decision } from './decision';
import { MalformedDecisionError } from './errors';
import { isJsonObject, jsonCopy, ownValue } from './json-value';

/**
 * The client side of the OpenID AuthZEN Authorization API 1.0 as Custos speaks it (docs/api.md, "AuthZEN"):
 * request bodies checked before they are sent, answers checked before they are believed, and Custos' decision
 * context (decision id, revision, modifiers, delay) read and typed.
 */

/** An AuthZEN decision as the SDK resolves it: the spec's shape, the context typed as Custos fills it. */
export interface AuthZenResult {
  decision: boolean;
  /** Always present in Custos' answers; typed so a PEP can apply modifiers and delays. */
  context: CustosDecisionContext;
}

/** The answer of `POST /access/v1/evaluations`, in the order of the evaluations. */
export interface AuthZenResults {
  /** As many as evaluations were sent, or fewer when a short-circuiting `evaluations_semantic` stopped early. */
  evaluations: AuthZenResult[];
}

/** The body of `POST /access/v1/evaluation`. */
export function evaluationBody(request: AccessEvaluationRequest): string {
  if (!isJsonObject(request)) throw new TypeError('the access evaluation request must be an object');
  for (const name of ['subject', 'action', 'resource'] as const) {
    if (!isJsonObject(ownValue(request, name))) throw new TypeError(`the access evaluation request needs \`${name}\``);
  }
  return JSON.stringify(request);
}

/**
 * The body of `POST /access/v1/evaluations`. The SDK sends only the batch form: without `evaluations` the pdp
 * answers in the single form, for which `evaluation()` is the call.
 */
export function evaluationsBody(request: AccessEvaluationsRequest): { body: string; count: number; complete: boolean } {
  if (!isJsonObject(request)) throw new TypeError('the access evaluations request must be an object');
  const evaluations = ownValue(request, 'evaluations');
  if (!Array.isArray(evaluations) || evaluations.length === 0) {
    throw new TypeError('`evaluations` must hold at least one evaluation; use `evaluation()` for a single one');
  }
  if (evaluations.length > MAX_BATCH_ITEMS) {
    throw new TypeError(`\`evaluations\` holds ${evaluations.length} evaluations; one request takes at most ${MAX_BATCH_ITEMS}`);
  }
  const semantic = isJsonObject(request.options) ? ownValue(request.options, 'evaluations_semantic') : undefined;
  // Only execute_all (the default) promises one decision per evaluation; the others may stop early.
  return { body: JSON.stringify(request), count: evaluations.length, complete: semantic === undefined || semantic === 'execute_all' };
}

/** Reads a 200 answer of `POST /access/v1/evaluation`. */
export function readAuthZenDecision(text: string): AuthZenResult {
  return authzenDecisionFrom(parseAnswer(text), '');
}

/**
 * Reads a 200 answer of `POST /access/v1/evaluations` sent `count` evaluations: exactly `count` decisions when
 * `complete` (execute_all), else between 1 and `count`. Any other number cannot be matched to the evaluations.
 */
export function readAuthZenEvaluations(text: string, count: number, complete: boolean): AuthZenResults {
  const body = parseAnswer(text);
  const evaluations = isJsonObject(body) ? ownValue(body, 'evaluations') : undefined;
  if (!Array.isArray(evaluations)) {
    throw new MalformedDecisionError('the answer is not a list of evaluations', { cause: new TypeError('`evaluations` must be a list') });
  }
  const fits = complete ? evaluations.length === count : evaluations.length >= 1 && evaluations.length <= count;
  if (!fits) {
    throw new MalformedDecisionError('the answer is not a list of evaluations', {
      cause: new RangeError(`${count} evaluations were sent but ${evaluations.length} decisions came back`),
    });
  }
  return { evaluations: evaluations.map((decision: unknown, index) => authzenDecisionFrom(decision, `\`evaluations[${index}]\`: `)) };
}

function authzenDecisionFrom(body: unknown, where: string): AuthZenResult {
  const problem = authzenProblem(body);
  if (problem !== undefined || !isJsonObject(body)) {
    throw new MalformedDecisionError('the answer is not an authzen decision', { cause: new TypeError(`${where}${problem ?? 'not an object'}`) });
  }
  const decision = body as unknown as Required<AuthZenDecision>;
  return { decision: decision.decision, context: decision.context };
}

/**
 * What is wrong with an AuthZEN decision from Custos, or undefined. The context is required: a decision whose
 * modifiers and delay cannot be read cannot be enforced, so a bare boolean from Custos is malformed.
 */
function authzenProblem(body: unknown): string | undefined {
  if (!isJsonObject(body)) return 'the answer is not an object';
  if (typeof ownValue(body, 'decision') !== 'boolean') return '`decision` must be a boolean';
  const context = ownValue(body, 'context');
  if (!isJsonObject(context)) return '`context` must be an object';
  if (typeof ownValue(context, 'decision_id') !== 'string') return '`context.decision_id` must be a string';
  const revision = ownValue(context, 'policy_revision');
  if (typeof revision !== 'number' || !Number.isSafeInteger(revision) || revision < 0) return '`context.policy_revision` must be a revision';
  const delay = ownValue(context, 'delay_ms');
  if (typeof delay !== 'number' || !Number.isFinite(delay) || delay < 0) return '`context.delay_ms` must be a number of milliseconds, 0 or more';
  const reason = ownValue(context, 'reason');
  if (reason !== undefined && typeof reason !== 'string') return '`context.reason` must be a string';
  const modifiers = ownValue(context, 'modifiers');
  if (!Array.isArray(modifiers)) return '`context.modifiers` must be a list';
  for (const [index, modifier] of modifiers.entries()) {
    const problem = modifierProblem(modifier);
    if (problem !== undefined) return `\`context.modifiers[${index}]\`: ${problem}`;
  }
  return undefined;
}

/**
 * An AuthZEN decision as the SDK's `Decision` (for `DecisionDeniedError` and the modifier errors' context):
 * allowed when `decision` is true, with the context's id, modifiers and delay.
 */
export function decisionOfAuthZen(result: AuthZenResult): Decision {
  const { context } = result;
  return {
    id: { identifier: context.decision_id },
    eventAllowed: result.decision,
    modifiers: context.modifiers,
    delay: context.delay_ms,
    policyRevision: context.policy_revision,
  };
}

/**
 * Carries out an allowing AuthZEN decision's modifiers on a copy of the evaluation: a modifier names `subject`,
 * `resource`, `action` or `context` (the parameters the pdp made of them) and a path inside it, e.g.
 * `resource` `$.properties.title`. Returns the modified copy; the evaluation given is never changed. Throws the
 * modifier errors of `applyModifiers` (fail closed) and leaves an entity the modifiers delete out of the copy.
 */
export function applyAuthZenModifiers(evaluation: CompleteEvaluation, result: AuthZenResult): Partial<CompleteEvaluation> {
  const values: Record<string, unknown> = { ...evaluation, context: evaluation.context ?? {} };
  const event: Event = {
    actionId: { urn: 'urn:action:authzen:evaluation' },
    timestamp: 0,
    parameters: AUTHZEN_PARAMETERS.map((name) => ({
      name,
      value: { value: jsonCopy(values[name]), type: AUTHZEN_PARAMETER_TYPES[name], isComplex: true },
    })),
  };
  applyModifiers(event, result.context.modifiers, decisionOfAuthZen(result));
  const released: Record<string, unknown> = {};
  for (const parameter of event.parameters) released[parameter.name] = parameter.value.value;
  return released as unknown as Partial<CompleteEvaluation>;
}
