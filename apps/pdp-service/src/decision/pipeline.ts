import type { IncomingHttpHeaders } from 'node:http';
import { toAuthorizationDecision, type AuthorizationDecision } from '@custos/contracts';
import type { EngineDecision, EngineEvent } from '@custos/policy-engine';
import { uuidv7 } from '@custos/service-kit';
import type { ActivePolicySet } from '../policy-set/follower';
import type { Decider } from './decider';
import { tracedDecision } from './traced';

/** One decided event: its id, the engine's decision, the wire answer, and the storing of its executes. */
export interface Decided {
  decisionId: string;
  decision: EngineDecision;
  answer: AuthorizationDecision;
  /**
   * The executes of the decision being stored durably (docs/api.md, "Executes"): whoever answers waits for it first,
   * so none an answered decision required is lost. Undefined when there is nothing to wait for (and for explanations).
   */
  stored: Promise<void> | undefined;
}

/** What one decision is taken for. */
export interface DecisionTask {
  active: ActivePolicySet;
  event: EngineEvent;
  solution: string;
  explain: boolean;
  /** The UUIDv7 of the decision id; a new one when absent (POST /event uses the one it made for the request). */
  uuid?: string;
  /** The timer whose tick this is, for the stored executes. */
  timerId?: string;
  /** The request's headers, whose `traceparent` a traced decision continues (decision/traced.ts). */
  headers?: IncomingHttpHeaders;
}

/**
 * The one path of a decision, for POST /event, the in-order batches (POST /events, AuthZEN) and timer ticks: the
 * decider decides with the active set (recording a history-using event itself), the decision gets its id and its
 * answer, and its executes go to the PXP gateway to be stored. The decision log line (decision/log.ts) is the
 * caller's last step, after its answer. Every step that need not wait does not: a pure decision comes back as a plain
 * value, without a promise or a microtask turn, and only a step that waits (history, PIPs) makes it a promise.
 */
export function runDecision(decider: Decider, task: DecisionTask): Decided | Promise<Decided> {
  if (decider.tracing.enabled) return tracedDecision(decider.tracing, task, () => decideOnce(decider, task));
  return decideOnce(decider, task);
}

function decideOnce(decider: Decider, task: DecisionTask): Decided | Promise<Decided> {
  const pending = decider.decide(task.active, task.event, task.solution, task.explain);
  if (pending instanceof Promise) return pending.then((decision) => decided(decider, task, decision));
  return decided(decider, task, pending);
}

function decided(decider: Decider, task: DecisionTask, decision: EngineDecision): Decided {
  const decisionId = `urn:decision:${task.uuid ?? uuidv7()}`;
  const context = task.timerId === undefined ? { decisionId } : { decisionId, timerId: task.timerId };
  const stored = task.explain ? undefined : decider.execute(task.active, decision, context);
  return { decisionId, decision, answer: toAuthorizationDecision(decisionId, decision), stored };
}
