import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  ERROR_CODES,
  MIN_REVISION_WAIT_MS,
  MAX_EVENT_BYTES,
  SCOPES,
  WorkBudget,
  eventSchema,
  javaValue,
  parseEvent,
  toAuthorizationDecision,
  toModifier,
  wireParameters,
  type AuthorizationDecision,
  type Event,
} from '@custos/contracts';
import type { EngineDecision, MechanismExplanation } from '@custos/policy-engine';
import {
  compileValidator,
  foreignSolution,
  requestIdOf,
  uuidv7,
  type BodyValidator,
  type Logger,
  type TokenVerifier,
} from '@custos/service-kit';
import { CHARS_PER_DECISION, type Admission, type Admitted } from '../admission';
import type { DefaultDecision } from '../config';
import { Decider } from '../decision/decider';
import { createDecisionLogger, logDecision } from '../decision/log';
import type { DecisionOutcome, PdpMetrics } from '../metrics';
import { activeSetFor, answerFailure, decidingPrincipal, parseSingle, readJsonText, refusalProblem, writeDecisionAnswer, type PolicySource } from './decision-request';

/** The request body schema of both decision routes (the wire contract's, compiled once). */
export { eventSchema };
const validateEvent: BodyValidator<Event> = compileValidator<Event>(eventSchema);

export interface DecisionRouteDeps {
  logger: Logger;
  metrics: PdpMetrics;
  verifier: TokenVerifier;
  policies: PolicySource;
  defaultDecision: DefaultDecision;
  timeZone: string;
  /** How long Min-Policy-Revision waits (api.md §3: 2 s). */
  minRevisionWaitMs?: number;
  /** Decides with history, PIPs and PXPs; a decider without any port when absent. */
  decider?: Decider;
  /** Per-solution admission (concurrency, rate) of every decision route. */
  admission: Admission;
}

export type DecisionHandler = (req: IncomingMessage, res: ServerResponse, explain: boolean) => Promise<void>;

/** In an explanation, when no mechanism decided: the default that did, and whose it was (the solution's or the pdp's). */
const defaultOf = (decision: EngineDecision) =>
  decision.defaultSource === undefined ? {} : { defaultDecision: { decision: decision.allowed ? 'allow' : 'inhibit', source: decision.defaultSource } };

/**
 * The explanation as the wire shows it: the engine's, with modifier and execute parameters typed like a decision's,
 * plus what the ports answered where a mechanism asked: `pip` (answers, whether the default was used and whether
 * the answer came from a cache), `history` (counts with their spans, windows of continuousOccurrence, FIRST/LAST
 * look-ups), `valueChanged` (compared, never stored), `conditionExecutions` (never called while explaining) and
 * `values` (the operand values of each comparison, function and arithmetic element, as plain JSON, cut short when long).
 */
export function wireExplanation(explanation: readonly MechanismExplanation[] | undefined): unknown[] {
  return (explanation ?? []).map((m) => ({
    policyId: m.policyId,
    mechanism: m.mechanism,
    event: m.event,
    branch: m.branch,
    conditions: m.conditions,
    outcome: m.outcome,
    delayMs: m.delayMs,
    modifiers: m.modifiers.map((modifier) => ({ policyId: modifier.policyId, ...toModifier(modifier), reason: modifier.reason })),
    executions: m.executions.map((e) => ({
      action: e.action,
      parameters: wireParameters(e.parameters),
    })),
    reason: m.reason,
    error: m.error,
    ...(m.pip === undefined
      ? {}
      : {
          pip: m.pip.map((answer) => ({
            method: answer.method,
            parameters: wireParameters(answer.parameters),
            value: javaValue(answer.value),
            usedDefault: answer.usedDefault,
            ...(answer.reason === undefined ? {} : { reason: answer.reason }),
            cached: answer.cached === true,
          })),
        }),
    ...(m.history === undefined ? {} : { history: m.history }),
    ...(m.valueChanged === undefined ? {} : { valueChanged: m.valueChanged }),
    ...(m.values === undefined ? {} : { values: m.values }),
    ...(m.conditionExecutions === undefined
      ? {}
      : {
          conditionExecutions: m.conditionExecutions.map((call) => ({
            action: call.action,
            parameters: wireParameters(call.parameters),
            called: call.called,
            answer: call.answer,
          })),
        }),
  }));
}

/**
 * POST /event and POST /event/explain, on bare node:http (no express middleware on the hot path):
 * token → scope → admission → media type → size → JSON → the event parser of contracts (schema, names, action,
 * depth, within the request's work budget) → solution → revision → decide → JSON.
 * The decision log line is written after the response.
 */
export function createDecisionHandler(deps: DecisionRouteDeps): DecisionHandler {
  const { logger, metrics, verifier, policies, admission } = deps;
  const decisionLog = createDecisionLogger(logger);
  const waitMs = deps.minRevisionWaitMs ?? MIN_REVISION_WAIT_MS;
  const decider = deps.decider ?? new Decider({ defaultDecision: deps.defaultDecision, timeZone: deps.timeZone, logger });

  const count = (explain: boolean, outcome: DecisionOutcome) => (explain ? metrics.explains : metrics.decisions).inc({ outcome });

  return async (req, res, explain) => {
    const started = process.hrtime.bigint();
    // One UUIDv7 per request: the decision id, and the request id unless the client sent one.
    const uuid = uuidv7();
    const sentId = req.headers['x-request-id'];
    const requestId = sentId === undefined ? uuid : requestIdOf(sentId);
    let admitted: Admitted | undefined;
    try {
      const principal = await decidingPrincipal(verifier, req);
      admitted = admission.admit(principal);
      const sent = await readJsonText(req, MAX_EVENT_BYTES);
      if (sent.length > CHARS_PER_DECISION) admission.chargeBody(admitted, sent.length);
      const body = await parseSingle(sent, admission, admitted);
      const parsed = parseEvent(body, { shape: validateEvent.errorsOf, budget: new WorkBudget() });
      if (!parsed.ok) throw refusalProblem(parsed, ERROR_CODES.invalidEvent);
      const { event: engineEvent, action } = parsed.value;
      if (!principal.mayAccess(action.solution)) throw foreignSolution(SCOPES.eventDecide);

      const active = await activeSetFor(req, policies, waitMs);

      const pending = decider.decide(active, engineEvent, action.solution, explain);
      // Pure decisions come back as plain values and are not delayed by an await.
      const decision: EngineDecision = pending instanceof Promise ? await pending : pending;
      const decisionId = `urn:decision:${uuid}`;
      // Executes are stored before the answer, so none an answered decision required is lost (docs/api.md).
      const stored = explain ? undefined : decider.execute(active, decision, { decisionId });
      if (stored !== undefined) await stored;
      const answer: AuthorizationDecision = toAuthorizationDecision(decisionId, decision);
      const text = JSON.stringify(
        explain ? { ...answer, explanation: wireExplanation(decision.explanation), policyRevision: active.revision, ...defaultOf(decision) } : answer,
      );
      writeDecisionAnswer(res, text, active.revision, requestId);

      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      count(explain, decision.allowed ? 'allow' : 'inhibit');
      if (!explain) metrics.decisionDuration.observe(seconds);
      logDecision(decisionLog, {
        decisionId,
        requestId,
        clientId: principal.clientId,
        action: action.urn,
        solution: action.solution,
        revision: active.revision,
        decision,
        latencyUs: Math.round(seconds * 1e6),
        explain,
      });
    } catch (error) {
      const problem = answerFailure(req, res, error, logger, requestId);
      if (problem === undefined) return;
      count(explain, problem.status === 503 ? 'unavailable' : problem.status >= 500 ? 'error' : 'rejected');
      logger.info(
        { requestId, method: req.method, path: explain ? '/event/explain' : '/event', status: problem.status, code: problem.code },
        'request',
      );
    } finally {
      if (admitted !== undefined) admission.release(admitted);
    }
  };
}
