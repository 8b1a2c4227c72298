import { AUTHZEN_PATHS, MAX_BATCH_ITEMS } from '@custos/contracts';
import { jsonResponse, problemResponse } from '@custos/service-kit';
import { pdpRawRoute } from './context';
import {
  authzenHeaders,
  authzenNote,
  authzenParameters,
  BATCH_LIMITS,
  batchErrors,
  DECIDE,
  decisionErrors,
  decisionParameters,
  jsonBody,
  ref,
  revisionHeader,
} from './decision-docs';
import { EVENTS_PATH } from './events';

export const DECISION_PATH = '/event';
export const EXPLAIN_PATH = '/event/explain';

const eventBody = jsonBody(ref('Event'), 'an Event (api.md §3): `actionId` as `{scope, action}` or `{urn}`, `timestamp` in ms, `parameters` with unique names');

/**
 * The decision routes: answered on bare node:http by the pdp's listener (express costs about 6× a plain handler
 * here, toolchain-notes.md) and, through the same handlers, by express for the spellings the literal match misses.
 * Each handler checks its token, admission, body and schema itself (routes/event.ts, events.ts, authzen.ts).
 */
export const DECISION_ROUTES = [
  pdpRawRoute({
    method: 'post',
    path: DECISION_PATH,
    operationId: 'decide',
    summary: 'Decide an event',
    description:
      "Evaluates every deployed mechanism of the event's action and combines them (policy-language.md §7): any inhibit wins; " +
      'otherwise allowed with the modifiers of the allowing branches. With no deciding mechanism, `DEFAULT_DECISION` applies. ' +
      'Every decision is logged (without parameter values) under its id.',
    security: DECIDE,
    headers: decisionParameters,
    forwardedBody: eventBody,
    responses: { 200: jsonResponse('the decision', ref('AuthorizationDecision'), revisionHeader), ...decisionErrors },
    serve: (req, res, deps) => deps.decide(req, res, false),
  }),
  pdpRawRoute({
    method: 'post',
    path: EXPLAIN_PATH,
    operationId: 'explain',
    summary: 'Decide an event and explain the decision',
    description:
      'The same decision as POST /event plus, for each mechanism of a matching policy, the branch taken, the values of its conditions, ' +
      'errors, and the delays, modifiers and executes it contributed, with the PIP answers (and whether they came from the cache), ' +
      'history counts, spans and windows, and valueChanged comparisons it used. No side effects: nothing is recorded in the event ' +
      'history (counts include the explained event as if it had been), no valueChanged state is stored, no PXP is called.',
    security: DECIDE,
    headers: decisionParameters,
    forwardedBody: eventBody,
    responses: { 200: jsonResponse('the decision with its explanation', ref('ExplainedDecision'), revisionHeader), ...decisionErrors },
    serve: (req, res, deps) => deps.decide(req, res, true),
  }),
  pdpRawRoute({
    method: 'post',
    path: EVENTS_PATH,
    operationId: 'decideBatch',
    summary: 'Decide several events in one request',
    description:
      `Each event is decided exactly as POST /event would decide it, one after another in the order given (a history-using event is recorded before the next is decided), all against the same policy revision; the decisions come back in the same order. ${BATCH_LIMITS} ` +
      'The whole batch is checked first: one invalid event, or one of a foreign solution, and nothing is decided or recorded. Every decision has its own id and decision log line; executes are stored before the answer.',
    security: DECIDE,
    headers: decisionParameters,
    forwardedBody: jsonBody(ref('EventBatch')),
    responses: {
      200: jsonResponse('the decisions, in the order of the events', ref('DecisionBatch'), revisionHeader),
      ...batchErrors('an event that breaks the schema or repeats a parameter name (`invalid_event`, at `events[i].…`)'),
    },
    serve: (req, res, deps) => deps.batch(req, res),
  }),
  pdpRawRoute({
    method: 'post',
    path: AUTHZEN_PATHS.evaluation,
    operationId: 'authzenEvaluation',
    summary: 'AuthZEN Access Evaluation (§6)',
    description: `One evaluation, decided as POST /event decides its event. ${authzenNote}`,
    security: DECIDE,
    headers: authzenParameters,
    forwardedBody: jsonBody(ref('AccessEvaluationRequest')),
    responses: {
      200: jsonResponse('the decision', ref('AuthZenDecision'), authzenHeaders),
      ...decisionErrors,
      400: problemResponse(
        'malformed JSON, a missing or mistyped `subject`, `action` or `resource`, or an action name that maps onto no action URN (`invalid_request`, with paths)',
      ),
    },
    serve: (req, res, deps) => deps.authzen.evaluation(req, res),
  }),
  pdpRawRoute({
    method: 'post',
    path: AUTHZEN_PATHS.evaluations,
    operationId: 'authzenEvaluations',
    summary: 'AuthZEN Access Evaluations (§7)',
    description:
      "Several evaluations, the top-level `subject`, `action`, `resource` and `context` being defaults an entry's own replace (§7.1.1); decided in order against one policy revision; `options.evaluations_semantic` `execute_all` (default), `deny_on_first_deny` or `permit_on_first_permit` (§7.1.2.1: the answer ends with the decision that stopped it, later entries are not decided). " +
      `Without \`evaluations\` (or with an empty array) the answer is a single decision. At most ${MAX_BATCH_ITEMS} evaluations. ${BATCH_LIMITS} ${authzenNote}`,
    security: DECIDE,
    headers: authzenParameters,
    forwardedBody: jsonBody(ref('AccessEvaluationsRequest')),
    responses: {
      200: jsonResponse('one decision per evaluation, in order (or a single decision without `evaluations`)', {
        oneOf: [ref('AccessEvaluationsResponse'), ref('AuthZenDecision')],
      }, authzenHeaders),
      ...batchErrors('an evaluation with a mistyped entity, one that lacks `subject`, `action` or `resource` here and as a default, or an action name that maps onto no action URN (`invalid_request`, at `evaluations[i].…`)'),
    },
    serve: (req, res, deps) => deps.authzen.evaluations(req, res),
  }),
];
