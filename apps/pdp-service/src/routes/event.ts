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
  toModifier,
  wireParameters,
  type Event,
  type EventAction,
} from '@custos/contracts';
import type { EngineDecision, EngineEvent, MechanismExplanation } from '@custos/policy-engine';
import {
  compileValidator,
  foreignSolution,
  parseJson,
  requestIdOf,
  uuidv7,
  type BodyValidator,
  type Logger,
  type Principal,
  type TokenVerifier,
} from '@custos/service-kit';
import { CHARS_PER_DECISION, type Admission, type Admitted } from '../admission';
import type { DefaultDecision } from '../config';
import { Decider } from '../decision/decider';
import { AnsweredDecisions } from '../decision/answered';
import { answerText } from './answer-text';
import { createDecisionLogger } from '../decision/log';
import { runDecision, type Decided } from '../decision/pipeline';
import type { DecisionOutcome, PdpMetrics } from '../metrics';
import type { ActivePolicySet } from '../policy-set/follower';
import {
  activeSetFor,
  activeSetNow,
  answerFailure,
  decidingPrincipal,
  PARSE_TURN_CHARS,
  principalNow,
  readJsonTextThen,
  refusalProblem,
  writeDecisionAnswer,
  type PolicySource,
} from './decision-request';

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

export type DecisionHandler = (req: IncomingMessage, res: ServerResponse, explain: boolean) => void;

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

/** One POST /event (or /event/explain) on its way: what the steps after the body need. */
interface EventCall {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly explain: boolean;
  /** performance.now() when it arrived, for the latency. */
  readonly started: number;
  /** The UUIDv7 of the request: the decision id, and the request id unless the client sent one. */
  readonly uuid: string;
  readonly requestId: string;
  principal?: Principal;
  admitted?: Admitted;
}

/**
 * POST /event and POST /event/explain, on bare node:http (no express middleware on the hot path):
 * token → scope → admission → media type → size → JSON → the event parser of contracts (schema, names, action,
 * depth, within the request's work budget) → solution → revision → the decision pipeline (decide, id, executes
 * stored) → JSON. The metrics and the decision log line follow the response (decision/answered.ts).
 *
 * Every step runs synchronously unless it has to wait: a token seen before is checked from the verifier's cache, the
 * body is read with a callback, and a pure decision is a plain value, so a request with a known token and a pure
 * decision takes no promise and no microtask turn from its body's end to its answer. A step that has to wait (a new
 * token, a large body's turn, Min-Policy-Revision, history, PIPs, executes) goes on when its promise settles.
 */
export function createDecisionHandler(deps: DecisionRouteDeps): DecisionHandler {
  const { logger, metrics, verifier, policies, admission } = deps;
  const answered = new AnsweredDecisions(createDecisionLogger(logger), metrics);
  const waitMs = deps.minRevisionWaitMs ?? MIN_REVISION_WAIT_MS;
  const decider = deps.decider ?? new Decider({ defaultDecision: deps.defaultDecision, timeZone: deps.timeZone, logger });

  const count = (explain: boolean, outcome: DecisionOutcome) => (explain ? metrics.explains : metrics.decisions).inc({ outcome });

  const fail = (call: EventCall, error: unknown): void => {
    try {
      const { req, res, explain } = call;
      const problem = answerFailure(req, res, error, logger, call.requestId);
      if (problem === undefined) return;
      count(explain, problem.status === 503 ? 'unavailable' : problem.status >= 500 ? 'error' : 'rejected');
      logger.info(
        { requestId: call.requestId, method: req.method, path: explain ? '/event/explain' : '/event', status: problem.status, code: problem.code },
        'request',
      );
    } finally {
      release(call);
    }
  };

  const release = (call: EventCall): void => {
    if (call.admitted !== undefined) admission.release(call.admitted);
    call.admitted = undefined;
  };

  /** Token known: admission, then the body. */
  const withPrincipal = (call: EventCall, principal: Principal): void => {
    call.principal = principal;
    call.admitted = admission.admit(principal);
    readJsonTextThen(call.req, MAX_EVENT_BYTES, (error, sent) => {
      if (error !== undefined) return fail(call, error);
      try {
        withBody(call, sent);
      } catch (thrown) {
        fail(call, thrown);
      }
    });
  };

  /** The body read: parsed now when small, in its solution's turn when large. */
  const withBody = (call: EventCall, sent: string): void => {
    const admitted = call.admitted as Admitted;
    if (sent.length > CHARS_PER_DECISION) admission.chargeBody(admitted, sent.length);
    if (sent.length > PARSE_TURN_CHARS) {
      admission.turns.turn(admitted.key).then(() => step(call, () => withJson(call, parseJson(sent))), (error: unknown) => fail(call, error));
    } else withJson(call, parseJson(sent));
  };

  const withJson = (call: EventCall, body: unknown): void => {
    const parsed = parseEvent(body, { shape: validateEvent.errorsOf, budget: new WorkBudget() });
    if (!parsed.ok) throw refusalProblem(parsed, ERROR_CODES.invalidEvent);
    const { event, action } = parsed.value;
    if (!(call.principal as Principal).mayAccess(action.solution)) throw foreignSolution(SCOPES.eventDecide);
    const active = activeSetNow(call.req, policies);
    if (active === undefined) {
      activeSetFor(call.req, policies, waitMs).then((set) => step(call, () => decideWith(call, set, event, action)), (error: unknown) => fail(call, error));
    } else decideWith(call, active, event, action);
  };

  const decideWith = (call: EventCall, active: ActivePolicySet, event: EngineEvent, action: EventAction): void => {
    // An explanation may first need its policies' documents again: the pdp keeps no policy text (issue 26).
    const preparing = call.explain ? policies.explainable?.(active, event.action) : undefined;
    if (preparing !== undefined) {
      preparing.then(() => step(call, () => decideNow(call, active, event, action)), (error: unknown) => fail(call, error));
    } else decideNow(call, active, event, action);
  };

  const decideNow = (call: EventCall, active: ActivePolicySet, event: EngineEvent, action: EventAction): void => {
    const result = runDecision(decider, { active, event, solution: action.solution, explain: call.explain, uuid: call.uuid, headers: call.req.headers });
    if (result instanceof Promise) result.then((done) => step(call, () => afterDecision(call, active, action, done, event)), (error: unknown) => fail(call, error));
    else afterDecision(call, active, action, result, event);
  };

  /** Executes are stored before the answer, so none an answered decision required is lost (docs/api.md). */
  const afterDecision = (call: EventCall, active: ActivePolicySet, action: EventAction, done: Decided, event: EngineEvent): void => {
    if (done.stored === undefined) answer(call, active, action, done, event);
    else done.stored.then(() => step(call, () => answer(call, active, action, done, event)), (error: unknown) => fail(call, error));
  };

  const answer = (call: EventCall, active: ActivePolicySet, action: EventAction, done: Decided, event: EngineEvent): void => {
    const { explain, requestId } = call;
    const { decision } = done;
    const text = explain
      ? JSON.stringify({ ...done.answer, explanation: wireExplanation(decision.explanation), policyRevision: active.revision, ...defaultOf(decision) })
      : answerText(done.answer);
    writeDecisionAnswer(call.res, text, active.revision, requestId);
    release(call);

    const seconds = (performance.now() - call.started) / 1e3;
    const record = {
      decisionId: done.decisionId,
      requestId,
      clientId: (call.principal as Principal).clientId,
      action: action.urn,
      solution: action.solution,
      revision: active.revision,
      decision,
      latencyUs: Math.round(seconds * 1e6),
      explain,
    };
    answered.add(record, seconds);
    decider.records?.add(record, event);
  };

  /** Runs one step; what it throws is the request's problem answer. */
  const step = (call: EventCall, run: () => void): void => {
    try {
      run();
    } catch (error) {
      fail(call, error);
    }
  };

  return (req, res, explain) => {
    const uuid = uuidv7();
    const sentId = req.headers['x-request-id'];
    const call: EventCall = {
      req,
      res,
      explain,
      started: performance.now(),
      uuid,
      requestId: sentId === undefined ? uuid : requestIdOf(sentId),
    };
    try {
      const known = principalNow(verifier, req);
      if (known !== undefined) withPrincipal(call, known);
      else decidingPrincipal(verifier, req).then((principal) => step(call, () => withPrincipal(call, principal)), (error: unknown) => fail(call, error));
    } catch (error) {
      fail(call, error);
    }
  };
}
