import type { IncomingHttpHeaders } from 'node:http';
import type { AuthorizationDecision, EventAction } from '@custos/contracts';
import type { EngineDecision, EngineEvent } from '@custos/policy-engine';
import type { WorkSlices } from '../admission';
import type { ActivePolicySet } from '../policy-set/follower';
import type { Decider } from './decider';
import { runDecision } from './pipeline';

/** One event of a batch, checked and ready to decide. */
export interface OrderedEvent {
  event: EngineEvent;
  action: EventAction;
}

/** One decided event: what the decision log and the answer are made of. */
export interface DecidedEvent {
  action: EventAction;
  decisionId: string;
  decision: EngineDecision;
  answer: AuthorizationDecision;
  /** When it was decided, in ns of process.hrtime (for the decision log's latency). */
  decidedAt: bigint;
  /** The event decided, for its decision record (decision-records/). */
  event: EngineEvent;
}

/**
 * Decides the events of one batch request exactly as POST /event decides each (the decision pipeline, pipeline.ts): one after another in request order,
 * so a history-using event is recorded before the next is decided and sees every earlier one (a limit of N allows
 * exactly the first N), all against the same active set. The executes of every decision are stored before this
 * returns, so none an answered decision required is lost. `stopAfter` ends the batch early (the AuthZEN
 * short-circuiting semantics): events after the one it stops at are neither decided nor recorded. With `slices`,
 * the loop gives the event loop back whenever a slice has run its time, and goes on at its solution's next turn.
 */
export async function decideInOrder(
  decider: Decider,
  active: ActivePolicySet,
  events: readonly OrderedEvent[],
  {
    stopAfter,
    slices,
    headers,
  }: {
    stopAfter?: (answer: AuthorizationDecision, decision: EngineDecision, action: EventAction) => boolean;
    slices?: WorkSlices;
    /** The request's headers: each decision's span continues their `traceparent` (decision/traced.ts). */
    headers?: IncomingHttpHeaders;
  } = {},
): Promise<DecidedEvent[]> {
  const decided: DecidedEvent[] = [];
  const stored: Promise<void>[] = [];
  for (const { event, action } of events) {
    const pending = runDecision(decider, { active, event, solution: action.solution, explain: false, headers });
    const { decisionId, decision, answer, stored: execution } = pending instanceof Promise ? await pending : pending;
    // The executes of every item are stored side by side; the batch is answered once all of them are.
    if (execution !== undefined) stored.push(execution);
    decided.push({ action, decisionId, decision, answer, decidedAt: process.hrtime.bigint(), event });
    if (stopAfter?.(answer, decision, action) === true) break;
    if (slices?.due() === true) await slices.next();
  }
  await Promise.all(stored);
  return decided;
}
