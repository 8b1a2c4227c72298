import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  AUTHZEN_PATHS,
  ERROR_CODES,
  HEADERS,
  MAX_BATCH_BYTES,
  MAX_EVENT_BYTES,
  MIN_REVISION_WAIT_MS,
  SCOPES,
  WorkBudget,
  accessEvaluationRequestSchema,
  accessEvaluationsRequestSchema,
  evaluationStops,
  fullContextAsked,
  modifiersSupported,
  parseAuthZenRequest,
  prescanAuthZen,
  semanticOf,
  toAuthZenDecision,
  type AccessEvaluationRequest,
  type AccessEvaluationsRequest,
  type AccessEvaluationsResponse,
  type AuthZenDecision,
  type AuthZenDefault,
  type AuthorizationDecision,
} from '@custos/contracts';
import type { EngineDecision } from '@custos/policy-engine';
import { compileValidator, foreignSolution, requestIdOf, type BodyValidator } from '@custos/service-kit';
import type { Admitted } from '../admission';
import { decideInOrder } from '../decision/in-order';
import { createDecisionLogger } from '../decision/log';
import { countFailedBatch, recordBatch } from './batch-outcome';
import { activeSetFor, answerFailure, decidingPrincipal, parseBatch, parseSingle, readJsonText, refusalProblem, writeDecisionAnswer } from './decision-request';
import type { BatchHandler, BatchRouteDeps } from './events';

export interface AuthZenRouteDeps extends BatchRouteDeps {
  /** The answer for an action no deployed mechanism reacts to (`PDP_AUTHZEN_DEFAULT`); `deny` when absent. */
  authzenDefault?: AuthZenDefault;
}

const validateEvaluation: BodyValidator<AccessEvaluationRequest> = compileValidator<AccessEvaluationRequest>(accessEvaluationRequestSchema);
const validateEvaluations: BodyValidator<AccessEvaluationsRequest> = compileValidator<AccessEvaluationsRequest>(accessEvaluationsRequestSchema);

/**
 * The AuthZEN Access Evaluation and Access Evaluations APIs (AuthZEN 1.0 §6, §7, HTTPS binding §10.1), on the
 * decision path of POST /event: same token, scope and admission, every evaluation mapped onto a Custos event
 * (contracts' parseAuthZenRequest: each distinct object checked once, each evaluation within the single-call size,
 * docs/api.md "AuthZEN") and decided as POST /event decides it, in request order, against one active set. The whole
 * request is checked before anything is decided. A request identifier the PEP sends in `X-Request-ID` comes back
 * unchanged (§10.1.3). Unlike POST /event, an action no deployed mechanism reacts to answers the AuthZEN default (the
 * solution's `authzenDefault` setting, else `PDP_AUTHZEN_DEFAULT`, deny unless set to allow), as AuthZEN PEPs expect;
 * the answer carries a `context` only when the PEP must act on it or `options.custos_context` asks for it, and the
 * decision ids go in the `Custos-Decision-Id` header.
 */
export function createAuthZenHandlers(deps: AuthZenRouteDeps): { evaluation: BatchHandler; evaluations: BatchHandler } {
  const { logger, metrics, verifier, policies, decider, admission } = deps;
  const decisionLog = createDecisionLogger(logger);
  const waitMs = deps.minRevisionWaitMs ?? MIN_REVISION_WAIT_MS;

  const handler =
    (route: string, single: boolean): BatchHandler =>
    async (req: IncomingMessage, res: ServerResponse) => {
      const started = process.hrtime.bigint();
      const sent = req.headers['x-request-id'];
      // Logged only in the safe form; answered exactly as sent.
      const requestId = requestIdOf(sent);
      const answeredId = typeof sent === 'string' && sent !== '' ? sent : requestId;
      let admitted: Admitted | undefined;
      try {
        const principal = await decidingPrincipal(verifier, req);
        admitted = admission.admit(principal);
        const text = await readJsonText(req, single ? MAX_EVENT_BYTES : MAX_BATCH_BYTES);
        const charged = admission.chargeBody(admitted, text.length);
        const slices = admission.slices(admitted);
        const body = single ? await parseSingle(text, admission, admitted) : await parseBatch(text, slices, prescanAuthZen, ERROR_CODES.invalidRequest);
        const parsed = parseAuthZenRequest(body, {
          shape: single ? validateEvaluation.errorsOf : validateEvaluations.errorsOf,
          single,
          solutions: [...principal.solutions],
          timestamp: Date.now(),
          budget: new WorkBudget(),
        });
        if (!parsed.ok) throw refusalProblem(parsed, ERROR_CODES.invalidRequest);
        const { events, options } = parsed.value;
        admission.chargeItems(admitted, events.length, charged);
        if (events.some(({ action }) => !principal.mayAccess(action.solution))) throw foreignSolution(SCOPES.eventDecide);
        const active = await activeSetFor(req, policies, waitMs);

        const semantic = semanticOf(options);
        const answerOptions = {
          revision: active.revision,
          canApplyModifiers: modifiersSupported(options),
          fullContext: fullContextAsked(options),
        };
        // The AuthZEN default of each evaluation's solution: its settings' `authzenDefault`, else the pdp's.
        const ownDefault = (solution: string) => active.settings.get(solution)?.authzenDefault;
        const defaultOf = (solution: string): AuthZenDefault => ownDefault(solution) ?? deps.authzenDefault ?? 'deny';
        const authzen = (answer: AuthorizationDecision, decision: EngineDecision, solution: string): AuthZenDecision =>
          toAuthZenDecision(answer, { ...answerOptions, defaultDecision: defaultOf(solution), decided: decision.decided });
        const decided = await decideInOrder(decider, active, events, {
          stopAfter: (answer, decision, action) => evaluationStops(semantic, authzen(answer, decision, action.solution).decision),
          slices,
          headers: req.headers,
        });
        const decisions = decided.map((item) => authzen(item.answer, item.decision, item.action.solution));
        const answer: AuthZenDecision | AccessEvaluationsResponse = parsed.value.single && decisions[0] !== undefined ? decisions[0] : { evaluations: decisions };
        const decisionIds = decided.map((item) => item.decisionId).join(', ');
        writeDecisionAnswer(res, JSON.stringify(answer), active.revision, answeredId, { [HEADERS.decisionId]: decisionIds });
        // The log and the metrics say what was answered, and whose default it was, where the AuthZEN default decided.
        const answered = decided.map((item) => {
          if (item.decision.decided) return item;
          const { solution } = item.action;
          const defaultSource = ownDefault(solution) === undefined ? 'pdp' : 'solution';
          return { ...item, decision: { ...item.decision, allowed: defaultOf(solution) === 'allow', defaultSource } };
        });
        recordBatch(decisionLog, metrics, answered, { route, requestId, clientId: principal.clientId, revision: active.revision, started, records: decider.records });
      } catch (error) {
        const problem = answerFailure(req, res, error, logger, requestId, answeredId);
        if (problem === undefined) return;
        countFailedBatch(metrics, route, problem.status);
        logger.info({ requestId, method: req.method, path: route, status: problem.status, code: problem.code }, 'request');
      } finally {
        if (admitted !== undefined) admission.release(admitted);
      }
    };

  return {
    evaluation: handler(AUTHZEN_PATHS.evaluation, true),
    evaluations: handler(AUTHZEN_PATHS.evaluations, false),
  };
}
