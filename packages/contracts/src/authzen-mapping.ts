import {
  AUTHZEN_REASONS,
  type AccessEvaluationsRequest,
  type AuthZenDecision,
  type AuthZenDefault,
  type AuthZenEvaluation,
  type CustosDecisionContext,
  type AuthZenOptions,
  type EvaluationsSemantic,
} from './authzen';
import type { AuthorizationDecision } from './schemas';
import type { Event, EventParameter } from './event';
import { MAX_VALUE_DEPTH, nestsDeeperThan, type EventAction } from './event-codec';
import type { ProblemError } from './problem';
import { ALL_SOLUTIONS } from './scopes';
import { NAME_PATTERN, parseUrn } from './urns';

/**
 * The deterministic mapping between AuthZEN evaluations and Custos events and decisions (docs/api.md, "AuthZEN").
 * Pure: no clock (the caller passes the timestamp), no I/O, so the pdp, the SDK and the tests share it.
 *
 * - `action.name` becomes the event's action URN: a whole `urn:action:<solution>:<name>` is taken as it is (which
 *   solution may use it is the caller's check, 403 otherwise); a bare name (`[A-Za-z0-9._-]+`) is put in the one
 *   solution of the caller's token; when the token covers several solutions or all (`*`), a bare name is ambiguous
 *   and refused (400) — name the action by its URN then. Any other name is refused (400).
 * - `subject`, `resource`, `action` and `context` become complex parameters of those names holding the objects as
 *   sent, so policies reach `$.id`, `$.type`, `$.properties.…` with `jsonPathQuery`; an absent context is `{}`.
 * - the decision is `true` exactly when the event is allowed and, if the caller declared it cannot apply modifiers,
 *   no modifier came with it (fail closed).
 */

/** The event parameter names an AuthZEN evaluation becomes, in this order. */
export const AUTHZEN_PARAMETERS = ['subject', 'resource', 'action', 'context'] as const;

/** The (informational) Java-style type names of those parameters. */
export const AUTHZEN_PARAMETER_TYPES: Record<(typeof AUTHZEN_PARAMETERS)[number], string> = {
  subject: 'org.openid.authzen.Subject',
  resource: 'org.openid.authzen.Resource',
  action: 'org.openid.authzen.Action',
  context: 'org.openid.authzen.Context',
};

const BARE_NAME = new RegExp(`^${NAME_PATTERN}$`);

export type Mapped<T> = { ok: true; value: T } | { ok: false; errors: ProblemError[] };

/**
 * The action URN of an AuthZEN action name for a caller whose token names `solutions` (`*` = all).
 * `path` locates the name in the request for the error.
 */
export function authzenAction(name: string, solutions: readonly string[], path = 'action.name'): Mapped<EventAction> {
  if (name.startsWith('urn:')) {
    const parsed = parseUrn('action', name);
    if (parsed) return { ok: true, value: { urn: name, solution: parsed.solution } };
    return { ok: false, errors: [{ path, message: `\`${name.slice(0, 80)}\` is not an action URN \`urn:action:<solution>:<name>\`` }] };
  }
  if (!BARE_NAME.test(name)) {
    return { ok: false, errors: [{ path, message: 'must be an action name of letters, digits, `.`, `_` and `-`, or a whole `urn:action:…`' }] };
  }
  const [only, ...more] = solutions;
  if (only === undefined || only === ALL_SOLUTIONS || more.length > 0) {
    return {
      ok: false,
      errors: [{ path, message: `the token covers several solutions; name the action as \`urn:action:<solution>:${name}\`` }],
    };
  }
  return { ok: true, value: { urn: `urn:action:${only}:${name}`, solution: only } };
}

/** A complete evaluation: what a Custos event is made from. */
export interface CompleteEvaluation {
  subject: NonNullable<AuthZenEvaluation['subject']>;
  action: NonNullable<AuthZenEvaluation['action']>;
  resource: NonNullable<AuthZenEvaluation['resource']>;
  context?: AuthZenEvaluation['context'];
}

/** One evaluation mapped: the event to decide and its action. */
export interface MappedEvaluation {
  event: Event;
  action: EventAction;
}

/**
 * The Custos event of one evaluation (its schema already checked), with the nesting bound of a parameter value of
 * POST /event (api.md, "Decisions") checked on each entity. `prefix` is prepended to error paths (`evaluations[3].`);
 * `timestamp` is the event's time, the pdp's clock when it received the request.
 */
export function toCustosEvent(
  evaluation: CompleteEvaluation,
  solutions: readonly string[],
  timestamp: number,
  prefix = '',
): Mapped<MappedEvaluation> {
  const errors: ProblemError[] = [];
  for (const name of AUTHZEN_PARAMETERS) {
    if (nestsDeeperThan(evaluation[name] ?? {}, MAX_VALUE_DEPTH)) errors.push({ path: `${prefix}${name}`, message: `is nested deeper than ${MAX_VALUE_DEPTH} levels` });
  }
  const mapped = mapEvaluation(evaluation, solutions, timestamp, prefix);
  if (!mapped.ok) return mapped;
  return errors.length > 0 ? { ok: false, errors } : mapped;
}

/**
 * The Custos event of one evaluation whose entities were already checked (the pdp's request parser checks each
 * distinct object once, so a default shared by many evaluations is not walked again for each).
 */
export function mapEvaluation(evaluation: CompleteEvaluation, solutions: readonly string[], timestamp: number, prefix = ''): Mapped<MappedEvaluation> {
  const action = authzenAction(evaluation.action.name, solutions, `${prefix}action.name`);
  if (!action.ok) return action;
  const values = {
    subject: evaluation.subject,
    resource: evaluation.resource,
    action: evaluation.action,
    context: evaluation.context ?? {},
  };
  const parameters: EventParameter[] = AUTHZEN_PARAMETERS.map((name) => ({
    name,
    value: { value: values[name], type: AUTHZEN_PARAMETER_TYPES[name], isComplex: true },
  }));
  return { ok: true, value: { event: { actionId: { urn: action.value.urn }, timestamp, parameters }, action: action.value } };
}

/**
 * The evaluations of an Access Evaluations request with the top-level defaults applied (§7.1.1): an entry's own
 * `subject`, `action`, `resource` or `context` wins over the top-level one (replacing it, not merged with it).
 * Without `evaluations`, or with an empty array, the request is one evaluation of its top-level entities (`single`).
 * Entities still missing are errors located at the entry (`evaluations[2].subject`), or at the top level when single.
 */
export function evaluationsOf(request: AccessEvaluationsRequest): Mapped<{ single: boolean; evaluations: CompleteEvaluation[] }> {
  const single = request.evaluations === undefined || request.evaluations.length === 0;
  const entries: AuthZenEvaluation[] = single ? [{}] : (request.evaluations ?? []);
  const errors: ProblemError[] = [];
  const evaluations: CompleteEvaluation[] = [];
  entries.forEach((entry, index) => {
    const prefix = single ? '' : `evaluations[${index}].`;
    const subject = entry.subject ?? request.subject;
    const action = entry.action ?? request.action;
    const resource = entry.resource ?? request.resource;
    const context = entry.context ?? request.context;
    const missing = (name: string) =>
      errors.push({ path: `${prefix}${name}`, message: single ? 'is required' : 'is required, here or as a top-level default' });
    if (subject === undefined) missing('subject');
    if (action === undefined) missing('action');
    if (resource === undefined) missing('resource');
    if (subject !== undefined && action !== undefined && resource !== undefined) {
      evaluations.push(context === undefined ? { subject, action, resource } : { subject, action, resource, context });
    }
  });
  if (errors.length > 0) return { ok: false, errors };
  return { ok: true, value: { single, evaluations } };
}

/** The evaluation semantic a request asks for; `execute_all` by default (§7.1.2.1). */
export function semanticOf(options: AuthZenOptions | undefined): EvaluationsSemantic {
  return options?.evaluations_semantic ?? 'execute_all';
}

/** Whether the caller can apply modifiers (the `custos_modifiers_supported` option); yes unless it says `false`. */
export function modifiersSupported(options: AuthZenOptions | undefined): boolean {
  return options?.custos_modifiers_supported !== false;
}

/** How a Custos decision becomes an AuthZEN answer (see toAuthZenDecision). */
export interface AuthZenAnswerOptions {
  /** The revision of the policy set that decided. */
  revision: number;
  /** Whether a deployed mechanism reacted to the action (the engine's `decided`); when not, `defaultDecision` answers. */
  decided: boolean;
  /** The answer for an action no deployed mechanism reacts to (`PDP_AUTHZEN_DEFAULT`); `deny` when absent. */
  defaultDecision?: AuthZenDefault;
  /** False when the request said `custos_modifiers_supported: false`. */
  canApplyModifiers?: boolean;
  /** True when the request said `custos_context: true`. */
  fullContext?: boolean;
}

/** Whether the caller asked for the whole context on every decision (the `custos_context` option). */
export function fullContextAsked(options: AuthZenOptions | undefined): boolean {
  return options?.custos_context === true;
}

const AUTHZEN_PARAMETER_NAMES: ReadonlySet<string> = new Set(AUTHZEN_PARAMETERS);

/**
 * A Custos decision as an AuthZEN decision. An action no deployed mechanism reacted to answers the AuthZEN default
 * (deny unless configured otherwise; `POST /event` keeps `DEFAULT_DECISION`). `decision` is true iff the event was
 * allowed, except that an allowing decision is `false` (fail closed) when a modifier aims at a parameter an
 * evaluation does not have (`unmatched_parameters`), or when it has modifiers and the caller cannot apply them.
 * `context` is there only when the PEP must act on it — modifiers to apply, a delay, unmatched modifiers — or when
 * `fullContext` asks for it (then with the decision id, the revision and the reason); else the answer is the bare
 * `{decision}` peers give, the decision id travelling in the `Custos-Decision-Id` header.
 */
export function toAuthZenDecision(decision: AuthorizationDecision, options: AuthZenAnswerOptions): AuthZenDecision {
  const { decided, canApplyModifiers = true, fullContext = false } = options;
  const allowed = decided ? decision.eventAllowed : options.defaultDecision === 'allow';
  const modifiers = allowed ? decision.modifiers : [];
  const unmatched = [...new Set(modifiers.map((modifier) => modifier.name).filter((name) => !AUTHZEN_PARAMETER_NAMES.has(name)))];
  let reason: string | undefined;
  if (!decided) reason = AUTHZEN_REASONS.noMechanism;
  else if (unmatched.length > 0) reason = AUTHZEN_REASONS.modifierTargetMissing;
  else if (modifiers.length > 0 && !canApplyModifiers) reason = AUTHZEN_REASONS.modifiersNotSupported;
  const granted = allowed && (reason === undefined || reason === AUTHZEN_REASONS.noMechanism);
  const mustAct = (granted && modifiers.length > 0) || decision.delay > 0 || unmatched.length > 0;
  if (!mustAct && !fullContext) return { decision: granted };
  const context: CustosDecisionContext = {
    ...(fullContext ? { decision_id: decision.id.identifier, policy_revision: options.revision } : {}),
    modifiers,
    delay_ms: decision.delay,
    ...(reason !== undefined ? { reason } : {}),
    ...(unmatched.length > 0 ? { unmatched_parameters: unmatched } : {}),
  };
  return { decision: granted, context };
}
