import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  ERROR_CODES,
  MAX_BATCH_BYTES,
  MIN_REVISION_WAIT_MS,
  SCOPES,
  WorkBudget,
  eventSchema,
  parseEventBatch,
  prescanEventBatch,
  type DecisionBatch,
  type Event,
} from '@custos/contracts';
import { compileValidator, foreignSolution, requestIdOf, type BodyValidator, type Logger, type TokenVerifier } from '@custos/service-kit';
import type { Admission, Admitted } from '../admission';
import type { Decider } from '../decision/decider';
import { decideInOrder } from '../decision/in-order';
import { createDecisionLogger } from '../decision/log';
import type { PdpMetrics } from '../metrics';
import { countFailedBatch, recordBatch } from './batch-outcome';
import {
  activeSetFor,
  answerFailure,
  decidingPrincipal,
  parseBatch,
  readJsonText,
  refusalProblem,
  writeDecisionAnswer,
  type PolicySource,
} from './decision-request';

export const EVENTS_PATH = '/events';

/** Each item is checked against the event schema on its own, so its errors are located at `events[i].…`. */
const validateEvent: BodyValidator<Event> = compileValidator<Event>(eventSchema);

export interface BatchRouteDeps {
  logger: Logger;
  metrics: PdpMetrics;
  verifier: TokenVerifier;
  policies: PolicySource;
  /** The same decider as POST /event's, so history, PIPs and PXPs are the same. */
  decider: Decider;
  admission: Admission;
  minRevisionWaitMs?: number;
}

export type BatchHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/**
 * POST /events: `{events: [Event…]}` → `{decisions: [AuthorizationDecision…]}` in the same order (docs/api.md,
 * "Batch decisions"). The whole batch is checked before anything is decided (contracts' parseEventBatch: each event
 * as POST /event checks it, each within the single-call size, the request within its work budget): one invalid
 * event, or one of a solution the token does not cover, and nothing is decided or recorded. Then the events are
 * decided one after another against one active set, exactly as POST /event would decide each, in slices that give
 * the event loop back to other solutions' requests.
 */
export function createEventsHandler(deps: BatchRouteDeps): BatchHandler {
  const { logger, metrics, verifier, policies, decider, admission } = deps;
  const decisionLog = createDecisionLogger(logger);
  const waitMs = deps.minRevisionWaitMs ?? MIN_REVISION_WAIT_MS;

  return async (req, res) => {
    const started = process.hrtime.bigint();
    const requestId = requestIdOf(req.headers['x-request-id']);
    let admitted: Admitted | undefined;
    try {
      const principal = await decidingPrincipal(verifier, req);
      admitted = admission.admit(principal);
      const text = await readJsonText(req, MAX_BATCH_BYTES);
      const charged = admission.chargeBody(admitted, text.length);
      const slices = admission.slices(admitted);
      const parsed = parseEventBatch(await parseBatch(text, slices, prescanEventBatch, ERROR_CODES.invalidEvent), { shape: validateEvent.errorsOf, budget: new WorkBudget() });
      if (!parsed.ok) throw refusalProblem(parsed, ERROR_CODES.invalidEvent);
      const events = parsed.value;
      admission.chargeItems(admitted, events.length, charged);
      if (events.some(({ action }) => !principal.mayAccess(action.solution))) throw foreignSolution(SCOPES.eventDecide);
      const active = await activeSetFor(req, policies, waitMs);

      const decided = await decideInOrder(decider, active, events, { slices, headers: req.headers });
      const answer: DecisionBatch = { decisions: decided.map((item) => item.answer) };
      writeDecisionAnswer(res, JSON.stringify(answer), active.revision, requestId);
      recordBatch(decisionLog, metrics, decided, { route: EVENTS_PATH, requestId, clientId: principal.clientId, revision: active.revision, started, records: decider.records });
    } catch (error) {
      const problem = answerFailure(req, res, error, logger, requestId);
      if (problem === undefined) return;
      countFailedBatch(metrics, EVENTS_PATH, problem.status);
      logger.info({ requestId, method: req.method, path: EVENTS_PATH, status: problem.status, code: problem.code }, 'request');
    } finally {
      if (admitted !== undefined) admission.release(admitted);
    }
  };
}
