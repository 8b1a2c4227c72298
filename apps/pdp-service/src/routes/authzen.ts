import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  AUTHZEN_PATHS,
  ERROR_CODES,
  MAX_BATCH_BYTES,
  MAX_BATCH_ITEMS,
  MIN_REVISION_WAIT_MS,
  SCOPES,
  accessEvaluationRequestSchema,
  accessEvaluationsRequestSchema,
  evaluationStops,
  evaluationsOf,
  modifiersSupported,
  semanticOf,
  toAuthZenDecision,
  toCustosEvent,
  toEngineEvent,
  type AccessEvaluationRequest,
  type AccessEvaluationsRequest,
  type AccessEvaluationsResponse,
  type AuthZenDecision,
  type AuthZenOptions,
  type CompleteEvaluation,
  type ProblemError,
} from '@custos/contracts';
import { compileValidator, foreignSolution, problems, requestIdOf, type BodyValidator } from '@custos/service-kit';
import { decideInOrder, type OrderedEvent } from '../decision/in-order';
import { createDecisionLogger } from '../decision/log';
import { countFailedBatch, recordBatch } from './batch-outcome';
import { activeSetFor, answerFailure, decidingPrincipal, readJsonBody, writeDecisionAnswer } from './decision-request';
import { MAX_EVENT_BYTES } from './event';
import { tooManyItems, type BatchHandler, type BatchRouteDeps } from './events';

const validateEvaluation: BodyValidator<AccessEvaluationRequest> = compileValidator<AccessEvaluationRequest>(accessEvaluationRequestSchema);
const validateEvaluations: BodyValidator<AccessEvaluationsRequest> = compileValidator<AccessEvaluationsRequest>(accessEvaluationsRequestSchema);

/** What one AuthZEN request asks, once its body is checked. */
interface AuthZenAsk {
  single: boolean;
  evaluations: CompleteEvaluation[];
  options: AuthZenOptions | undefined;
}

function askOfEvaluation(body: unknown): AuthZenAsk {
  validateEvaluation.assert(body, ERROR_CODES.invalidRequest, 'the access evaluation request does not match the schema');
  const { subject, action, resource, context } = body;
  return { single: true, evaluations: [context === undefined ? { subject, action, resource } : { subject, action, resource, context }], options: body.options };
}

function askOfEvaluations(body: unknown): AuthZenAsk {
  const items = typeof body === 'object' && body !== null ? (body as { evaluations?: unknown }).evaluations : undefined;
  if (Array.isArray(items) && items.length > MAX_BATCH_ITEMS) throw tooManyItems('evaluations', items.length);
  validateEvaluations.assert(body, ERROR_CODES.invalidRequest, 'the access evaluations request does not match the schema');
  const expanded = evaluationsOf(body);
  if (!expanded.ok) throw problems.badRequest(ERROR_CODES.invalidRequest, 'an evaluation lacks a subject, action or resource', expanded.errors);
  return { ...expanded.value, options: body.options };
}

/**
 * The AuthZEN Access Evaluation and Access Evaluations APIs (AuthZEN 1.0 §6, §7, HTTPS binding §10.1), on the
 * decision path of POST /event: same token and scope, every evaluation mapped onto a Custos event (contracts'
 * authzen-mapping, docs/api.md "AuthZEN") and decided as POST /event decides it, in request order, against one
 * active set. The whole request is checked before anything is decided. A request identifier the PEP sends in
 * `X-Request-ID` comes back unchanged (§10.1.3).
 */
export function createAuthZenHandlers(deps: BatchRouteDeps): { evaluation: BatchHandler; evaluations: BatchHandler } {
  const { logger, metrics, verifier, policies, decider } = deps;
  const decisionLog = createDecisionLogger(logger);
  const waitMs = deps.minRevisionWaitMs ?? MIN_REVISION_WAIT_MS;

  const handler =
    (route: string, limit: number, ask: (body: unknown) => AuthZenAsk): BatchHandler =>
    async (req: IncomingMessage, res: ServerResponse) => {
      const started = process.hrtime.bigint();
      const sent = req.headers['x-request-id'];
      // Logged only in the safe form; answered exactly as sent.
      const requestId = requestIdOf(sent);
      const answeredId = typeof sent === 'string' && sent !== '' ? sent : requestId;
      try {
        const principal = await decidingPrincipal(verifier, req);
        const { single, evaluations, options } = ask(await readJsonBody(req, limit));
        const solutions = [...principal.solutions];
        const now = Date.now();
        const errors: ProblemError[] = [];
        const events: OrderedEvent[] = [];
        evaluations.forEach((evaluation, index) => {
          const mapped = toCustosEvent(evaluation, solutions, now, single ? '' : `evaluations[${index}].`);
          if (!mapped.ok) errors.push(...mapped.errors);
          else events.push({ event: toEngineEvent(mapped.value.event, mapped.value.action.urn), action: mapped.value.action });
        });
        if (errors.length > 0) throw problems.badRequest(ERROR_CODES.invalidRequest, 'an evaluation cannot be mapped onto an event; nothing was decided', errors);
        if (events.some(({ action }) => !principal.mayAccess(action.solution))) throw foreignSolution(SCOPES.eventDecide);
        const active = await activeSetFor(req, policies, waitMs);

        const semantic = semanticOf(options);
        const canApply = modifiersSupported(options);
        const authzen = (answer: Parameters<typeof toAuthZenDecision>[0]): AuthZenDecision => toAuthZenDecision(answer, active.revision, canApply);
        const decided = await decideInOrder(decider, active, events, (answer) => evaluationStops(semantic, authzen(answer).decision));
        const decisions = decided.map((item) => authzen(item.answer));
        const body: AuthZenDecision | AccessEvaluationsResponse = single && decisions[0] !== undefined ? decisions[0] : { evaluations: decisions };
        const text = JSON.stringify(body);
        writeDecisionAnswer(res, text, active.revision, answeredId);
        recordBatch(decisionLog, metrics, decided, { route, requestId, clientId: principal.clientId, revision: active.revision, started });
      } catch (error) {
        const problem = answerFailure(req, res, error, logger, requestId, answeredId);
        if (problem === undefined) return;
        countFailedBatch(metrics, route, problem.status);
        logger.info({ requestId, method: req.method, path: route, status: problem.status, code: problem.code }, 'request');
      }
    };

  return {
    evaluation: handler(AUTHZEN_PATHS.evaluation, MAX_EVENT_BYTES, askOfEvaluation),
    evaluations: handler(AUTHZEN_PATHS.evaluations, MAX_BATCH_BYTES, askOfEvaluations),
  };
}
