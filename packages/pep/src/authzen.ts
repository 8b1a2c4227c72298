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
import { modifierProblem, parseAnswer, readRevision, type Decision } from './decision';
import { MalformedDecisionError, ModifierTargetError } from './errors';
import { isJsonObject, jsonCopy, ownValue } from './json-value';

/**
 * The client side of the OpenID AuthZEN Authorization API 1.0 as Custos speaks it (docs/api.md, "AuthZEN"):
 * request bodies checked before they are sent, answers checked before they are believed, and Custos' decision
 * context (decision id, revision, modifiers, delay) read, typed and filled in where the pdp left it out.
 */

/**
 * Custos' decision context as the SDK resolves it: the pdp sends `context` only when there is something to act on
 * (or `options.custos_context` asked), so the id comes from `Custos-Decision-Id`, the revision from
 * `Policy-Revision`, and absent modifiers and delay are none.
 */
export interface AuthZenContext extends CustosDecisionContext {
  decision_id: string;
  policy_revision: number;
}

/** An AuthZEN decision as the SDK resolves it: the spec's shape, the context typed as Custos fills it. */
export interface AuthZenResult {
  decision: boolean;
  /** Always present here (filled from the headers when the answer had none); typed so a PEP can apply modifiers and delays. */
  context: AuthZenContext;
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

/** What the headers of an AuthZEN answer say: the revision that decided, and the decision ids in order. */
interface AnswerHeaders {
  revision: number | null;
  ids: string[];
}

function answerHeaders(revisionHeader: string | null, decisionIdHeader: string | null): AnswerHeaders {
  return { revision: readRevision(revisionHeader), ids: decisionIdHeader === null ? [] : decisionIdHeader.split(',').map((id) => id.trim()) };
}

/** Reads a 200 answer of `POST /access/v1/evaluation` with its `Policy-Revision` and `Custos-Decision-Id` headers. */
export function readAuthZenDecision(text: string, revisionHeader: string | null = null, decisionIdHeader: string | null = null): AuthZenResult {
  return authzenDecisionFrom(parseAnswer(text), '', answerHeaders(revisionHeader, decisionIdHeader), 0);
}

/**
 * Reads a 200 answer of `POST /access/v1/evaluations` sent `count` evaluations: exactly `count` decisions when
 * `complete` (execute_all), else between 1 and `count`. Any other number cannot be matched to the evaluations.
 */
export function readAuthZenEvaluations(
  text: string,
  count: number,
  complete: boolean,
  revisionHeader: string | null = null,
  decisionIdHeader: string | null = null,
): AuthZenResults {
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
  const headers = answerHeaders(revisionHeader, decisionIdHeader);
  return { evaluations: evaluations.map((decision: unknown, index) => authzenDecisionFrom(decision, `\`evaluations[${index}]\`: `, headers, index)) };
}

function authzenDecisionFrom(body: unknown, where: string, headers: AnswerHeaders, index: number): AuthZenResult {
  const problem = authzenProblem(body);
  const malformed = (why: string) => new MalformedDecisionError('the answer is not an authzen decision', { cause: new TypeError(`${where}${why}`) });
  if (problem !== undefined || !isJsonObject(body)) throw malformed(problem ?? 'not an object');
  const decision = body as unknown as AuthZenDecision;
  const sent: Partial<CustosDecisionContext> = decision.context ?? {};
  // The id is what ties an enforcement to the decision log: an answer without one cannot be accounted for.
  const decisionId = sent.decision_id ?? headers.ids[index];
  if (decisionId === undefined || decisionId === '') throw malformed('no decision id, neither in `context.decision_id` nor in header `Custos-Decision-Id`');
  const revision = sent.policy_revision ?? headers.revision;
  if (revision === null) throw malformed('no revision, neither in `context.policy_revision` nor in header `Policy-Revision`');
  const context: AuthZenContext = { ...sent, decision_id: decisionId, policy_revision: revision, modifiers: sent.modifiers ?? [], delay_ms: sent.delay_ms ?? 0 };
  return { decision: decision.decision, context };
}

/**
 * What is wrong with an AuthZEN decision from Custos, or undefined. `context` may be absent (nothing to act on);
 * when present, whatever it holds must have the type Custos gives it, or the decision cannot be enforced.
 */
function authzenProblem(body: unknown): string | undefined {
  if (!isJsonObject(body)) return 'the answer is not an object';
  if (typeof ownValue(body, 'decision') !== 'boolean') return '`decision` must be a boolean';
  const context = ownValue(body, 'context');
  if (context === undefined) return undefined;
  if (!isJsonObject(context)) return '`context` must be an object';
  const id = ownValue(context, 'decision_id');
  if (id !== undefined && typeof id !== 'string') return '`context.decision_id` must be a string';
  const revision = ownValue(context, 'policy_revision');
  if (revision !== undefined && (typeof revision !== 'number' || !Number.isSafeInteger(revision) || revision < 0)) return '`context.policy_revision` must be a revision';
  const delay = ownValue(context, 'delay_ms');
  if (delay !== undefined && (typeof delay !== 'number' || !Number.isFinite(delay) || delay < 0)) return '`context.delay_ms` must be a number of milliseconds, 0 or more';
  const reason = ownValue(context, 'reason');
  if (reason !== undefined && typeof reason !== 'string') return '`context.reason` must be a string';
  const unmatched = ownValue(context, 'unmatched_parameters');
  if (unmatched !== undefined && !(Array.isArray(unmatched) && unmatched.every((name) => typeof name === 'string'))) return '`context.unmatched_parameters` must be a list of names';
  const modifiers = ownValue(context, 'modifiers');
  if (modifiers === undefined) return undefined;
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
 * modifier errors of `applyModifiers` (fail closed), `ModifierTargetError` for a modifier aimed at any other
 * parameter (it could never be applied, and skipping it would release what the policy wanted changed), and
 * leaves an entity the modifiers delete out of the copy.
 */
export function applyAuthZenModifiers(evaluation: CompleteEvaluation, result: AuthZenResult): Partial<CompleteEvaluation> {
  const names: readonly string[] = AUTHZEN_PARAMETERS;
  result.context.modifiers.forEach((modifier, index) => {
    if (!names.includes(modifier.name)) throw new ModifierTargetError(modifier.name, { decision: decisionOfAuthZen(result), modifier, index });
  });
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
