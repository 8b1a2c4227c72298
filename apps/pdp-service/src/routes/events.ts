import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  ERROR_CODES,
  MAX_BATCH_BYTES,
  MAX_BATCH_ITEMS,
  MIN_REVISION_WAIT_MS,
  SCOPES,
  actionOf,
  duplicateParameters,
  eventBatchSchema,
  overlyDeepParameters,
  toEngineEvent,
  type DecisionBatch,
  type EventBatch,
  type ProblemError,
} from '@custos/contracts';
import {
  HttpProblem,
  compileValidator,
  foreignSolution,
  problems,
  requestIdOf,
  type BodyValidator,
  type Logger,
  type TokenVerifier,
} from '@custos/service-kit';
import type { Decider } from '../decision/decider';
import { decideInOrder, type OrderedEvent } from '../decision/in-order';
import { createDecisionLogger } from '../decision/log';
import type { PdpMetrics } from '../metrics';
import { countFailedBatch, recordBatch } from './batch-outcome';
import { activeSetFor, answerFailure, decidingPrincipal, readJsonBody, within, writeDecisionAnswer, type PolicySource } from './decision-request';

export const EVENTS_PATH = '/events';

const validateBatch: BodyValidator<EventBatch> = compileValidator<EventBatch>(eventBatchSchema);

export interface BatchRouteDeps {
  logger: Logger;
  metrics: PdpMetrics;
  verifier: TokenVerifier;
  policies: PolicySource;
  /** The same decider as POST /event's, so history, PIPs and PXPs are the same. */
  decider: Decider;
  minRevisionWaitMs?: number;
}

export type BatchHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/** More items than a batch may carry: 413, before anything else about them is looked at. */
export function tooManyItems(field: string, count: number): HttpProblem {
  return new HttpProblem(413, ERROR_CODES.payloadTooLarge, `a batch carries at most ${MAX_BATCH_ITEMS} items, got ${count}`, [
    { path: field, message: `has more than ${MAX_BATCH_ITEMS} items` },
  ]);
}

/**
 * The events of a batch body, every one checked as POST /event checks its event (schema, unique parameter names,
 * a valid action, nesting depth), with each problem located at `events[i].…`; all problems of all events in one 400.
 */
function checkedEvents(body: unknown): OrderedEvent[] {
  const items = typeof body === 'object' && body !== null ? (body as { events?: unknown }).events : undefined;
  if (Array.isArray(items) && items.length > MAX_BATCH_ITEMS) throw tooManyItems('events', items.length);
  validateBatch.assert(body, ERROR_CODES.invalidEvent, 'the batch does not match the schema');
  const errors: ProblemError[] = [];
  const events: OrderedEvent[] = [];
  body.events.forEach((event, index) => {
    const prefix = `events[${index}]`;
    const duplicates = duplicateParameters(event.parameters);
    if (duplicates.length > 0) {
      errors.push(...within(prefix, duplicates));
      return;
    }
    const action = actionOf(event.actionId);
    if (!action) {
      errors.push({ path: `${prefix}.actionId`, message: 'names no valid action' });
      return;
    }
    const engineEvent = toEngineEvent(event, action.urn);
    const tooDeep = overlyDeepParameters(engineEvent.parameters);
    if (tooDeep.length > 0) errors.push(...within(prefix, tooDeep));
    else events.push({ event: engineEvent, action });
  });
  if (errors.length > 0) throw problems.badRequest(ERROR_CODES.invalidEvent, 'an event of the batch is invalid; nothing was decided', errors);
  return events;
}

/**
 * POST /events: `{events: [Event…]}` → `{decisions: [AuthorizationDecision…]}` in the same order (docs/api.md,
 * "Batch decisions"). The whole batch is checked before anything is decided: one invalid event, or one of a
 * solution the token does not cover, and nothing is decided or recorded. Then the events are decided one after
 * another against one active set, exactly as POST /event would decide each.
 */
export function createEventsHandler(deps: BatchRouteDeps): BatchHandler {
  const { logger, metrics, verifier, policies, decider } = deps;
  const decisionLog = createDecisionLogger(logger);
  const waitMs = deps.minRevisionWaitMs ?? MIN_REVISION_WAIT_MS;

  return async (req, res) => {
    const started = process.hrtime.bigint();
    const requestId = requestIdOf(req.headers['x-request-id']);
    try {
      const principal = await decidingPrincipal(verifier, req);
      const events = checkedEvents(await readJsonBody(req, MAX_BATCH_BYTES));
      if (events.some(({ action }) => !principal.mayAccess(action.solution))) throw foreignSolution(SCOPES.eventDecide);
      const active = await activeSetFor(req, policies, waitMs);

      const decided = await decideInOrder(decider, active, events);
      const answer: DecisionBatch = { decisions: decided.map((item) => item.answer) };
      const text = JSON.stringify(answer);
      writeDecisionAnswer(res, text, active.revision, requestId);
      recordBatch(decisionLog, metrics, decided, { route: EVENTS_PATH, requestId, clientId: principal.clientId, revision: active.revision, started });
    } catch (error) {
      const problem = answerFailure(req, res, error, logger, requestId);
      if (problem === undefined) return;
      countFailedBatch(metrics, EVENTS_PATH, problem.status);
      logger.info({ requestId, method: req.method, path: EVENTS_PATH, status: problem.status, code: problem.code }, 'request');
    }
  };
}
