import {
  decide,
  type Clock,
  type DecideOptions,
  type EngineDecision,
  type EngineEvent,
  type EvaluationPorts,
  type EventHistory,
} from '@custos/policy-engine';
import type { Logger } from '@custos/service-kit';
import type { DefaultDecision } from '../config';
import type { MemberVerdict } from '../history/batch';
import type { ActionPlan } from '../history/plan';
import type { PgHistoryStore } from '../history/store';
import type { HttpPipResolver } from '../pip/resolver';
import type { ActivePolicySet } from '../policy-set/follower';
import type { PxpGateway } from '../pxp/gateway';
import { CallMemo, type CallPorts } from './call-memo';

export interface DeciderOptions {
  defaultDecision: DefaultDecision;
  timeZone: string;
  logger: Logger;
  /** The event history; without it history-using mechanisms fail closed and nothing is recorded. */
  history?: PgHistoryStore;
  /** Without it every `pip:*` takes its default. */
  pip?: HttpPipResolver;
  /** Without it an `execute` in a condition fails its mechanism, and asynchronous executes are not run. */
  pxp?: PxpGateway;
  /** The decisions' "now" (tests control it); Date.now by default. */
  clock?: Clock;
}

const SYSTEM_CLOCK: Clock = { now: () => Date.now() };

/** A history that answers nothing: the engine then fails every history-using mechanism closed. */
export const UNAVAILABLE_HISTORY: EventHistory = {
  count: () => Promise.reject(new Error('the event history is unavailable')),
  occurrence: () => Promise.reject(new Error('the event history is unavailable')),
  valueChanged: () => Promise.reject(new Error('the event history is unavailable')),
};

const fixedClock = (now: number): Clock => ({ now: () => now });

/**
 * How often a recorded decision may leave its batch to ask PIPs or PXPs its locked evaluation needed; the last time,
 * questions still unanswered get what a failed call gets (PIP: default; execute: false).
 */
export const MAX_BATCH_ATTEMPTS = 3;

/**
 * Decides one event with the active set, for POST /event, /event/explain and timer ticks. The cost depends only on
 * what the event's action needs (its plan, looked up once):
 *
 * - no plan: the policies are pure; `decide` runs without ports and answers synchronously, nothing is awaited and
 *   the database is never touched;
 * - ports without history: PIPs and PXPs only;
 * - history, action not recorded: every history question is one statement on the pool;
 * - action recorded: the decision joins the batch of its action (HistoryBatcher): one transaction under the
 *   action's lock records the events of the decisions that arrived together and evaluates them in arrival order, each
 *   seeing the events before it; it commits before any answer. If the batch cannot record (database down) or its
 *   commit fails, the decision is taken with an unavailable history: history-using mechanisms fail closed, the others
 *   decide as usual, and nothing is allowed on the strength of a record that does not exist.
 *
 *   No PIP or PXP is asked while the lock is held (a slow PIP would hold up every decision of the action). The locked
 *   evaluation answers them from a CallMemo filled beforehand by an evaluation outside the lock (a "rehearsal" that
 *   reads the history without recording, like an explanation). Actions whose decisions have never asked skip the
 *   rehearsal; a decision that asks an unknown question under the lock leaves the batch unrecorded, is rehearsed,
 *   and joins the next one (at most MAX_BATCH_ATTEMPTS times), and its action is rehearsed from then on.
 *
 * Explanations never record and never store: they get a history that only reads and counts the explained event as
 * if it had been recorded; the engine itself never calls PXPs while explaining.
 */
export class Decider {
  private readonly options: DecideOptions;
  private readonly explainOptions: DecideOptions;
  private readonly clock: Clock;
  /** Plans of actions whose decisions asked a PIP or PXP: rehearsed before they join a batch. */
  private readonly callingPlans = new WeakSet<ActionPlan>();

  constructor(private readonly deps: DeciderOptions) {
    this.options = { defaultDecision: deps.defaultDecision, timeZone: deps.timeZone };
    this.explainOptions = { ...this.options, explain: true };
    this.clock = deps.clock ?? SYSTEM_CLOCK;
  }

  decide(active: ActivePolicySet, event: EngineEvent, solution: string, explain: boolean): EngineDecision | Promise<EngineDecision> {
    const options = explain ? this.explainOptions : this.options;
    const plan = active.history.plan(event.action);
    if (plan === undefined) return decide(active.set, event, options);
    const ports = this.callPorts(active);
    if (explain) {
      const now = this.clock.now();
      const history = plan.usesHistory || plan.record ? this.deps.history?.explainer(plan, event, now) : undefined;
      return decide(active.set, event, options, { ...ports, clock: fixedClock(now), history });
    }
    if (!plan.record) {
      const history = plan.usesHistory ? this.deps.history?.reader(active.revision) : undefined;
      return decide(active.set, event, options, { ...ports, clock: this.clock, history });
    }
    return this.recorded(active, plan, event, solution, ports);
  }

  /** Starts the asynchronous executes of a decision (never for explanations). */
  execute(active: ActivePolicySet, decision: EngineDecision, context: { decisionId: string; timerId?: string }): void {
    if (decision.executions.length === 0) return;
    if (this.deps.pxp === undefined) {
      this.deps.logger.error({ ...context, executions: decision.executions.length }, 'no pxp gateway; executes not run');
      return;
    }
    this.deps.pxp.dispatch(active.components, decision.executions, context);
  }

  private callPorts(active: ActivePolicySet): Pick<EvaluationPorts, 'pip' | 'pxp'> {
    return { pip: this.deps.pip?.bind(active.components), pxp: this.deps.pxp?.executor(active.components) };
  }

  private async recorded(active: ActivePolicySet, plan: ActionPlan, event: EngineEvent, solution: string, ports: CallPorts): Promise<EngineDecision> {
    const store = this.deps.history;
    const now = this.clock.now();
    if (store === undefined) return decide(active.set, event, this.options, { ...ports, clock: fixedClock(now) });
    const memo = new CallMemo();
    const keys = store.hasher.eventKeys(event.parameters, plan.filters);
    if (this.callingPlans.has(plan)) await this.rehearse(active, plan, event, memo.recording(ports), now);
    for (let attempt = 1; ; attempt += 1) {
      const last = attempt >= MAX_BATCH_ATTEMPTS;
      const outcome = await store.batcher.submit<EngineDecision>({
        plan,
        revision: active.revision,
        solution,
        keys,
        now,
        evaluate: (history, at) => this.evaluateLocked(active, event, memo, ports, history, at, last),
      });
      if (outcome.kind === 'committed') return outcome.value;
      if (outcome.kind === 'unrecorded') {
        this.deps.logger.warn(
          { action: event.action, stage: outcome.stage },
          outcome.stage === 'open'
            ? 'event could not be recorded; history-using mechanisms fail closed'
            : 'event history transaction lost; decided again with history-using mechanisms failing closed',
        );
        return decide(active.set, event, this.options, { ...memo.recording(ports), clock: fixedClock(outcome.at), history: UNAVAILABLE_HISTORY });
      }
      this.callingPlans.add(plan);
      await this.rehearse(active, plan, event, memo.recording(ports), now);
    }
  }

  /** The evaluation under the lock: history from the batch, PIP and PXP answers from the memo only. */
  private async evaluateLocked(
    active: ActivePolicySet,
    event: EngineEvent,
    memo: CallMemo,
    ports: CallPorts,
    history: EventHistory,
    at: number,
    last: boolean,
  ): Promise<MemberVerdict<EngineDecision>> {
    const missesBefore = memo.misses;
    const decision = await decide(active.set, event, this.options, { ...memo.replaying(ports), clock: fixedClock(at), history });
    if (memo.misses === missesBefore) return { kind: 'decided', value: decision };
    if (!last) return { kind: 'withdrawn' };
    this.deps.logger.warn({ action: event.action }, 'a pip or pxp question first asked under the history lock took its failure answer');
    return { kind: 'decided', value: decision };
  }

  /**
   * An evaluation outside the lock, to ask the PIPs and PXPs the locked one will need: history as an explanation
   * sees it (read, never written), the answer thrown away. A failure here only means fewer answers known.
   */
  private async rehearse(active: ActivePolicySet, plan: ActionPlan, event: EngineEvent, calls: CallPorts, now: number): Promise<void> {
    const history = this.deps.history?.explainer(plan, event, now);
    try {
      await decide(active.set, event, this.options, { ...calls, clock: fixedClock(now), history });
    } catch (error) {
      this.deps.logger.warn({ err: error, action: event.action }, 'rehearsal of a recorded decision failed');
    }
  }
}
