import {
  decide,
  type Clock,
  type DecideOptions,
  type EngineDecision,
  type EngineEvent,
  type EvaluationPorts,
  type EventHistory,
} from '@custos/policy-engine';
import { NO_TRACING, type Logger, type Tracing } from '@custos/service-kit';
import type { DefaultDecision } from '../config';
import type { ActionPlan } from '../history/plan';
import type { RecordedEvent } from '../history/batch';
import type { PgHistoryStore } from '../history/store';
import type { HttpPipResolver } from '../pip/resolver';
import type { ActivePolicySet } from '../policy-set/follower';
import type { PxpGateway } from '../pxp/gateway';
import type { DecisionRecordSink } from '../decision-records/buffer';

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
  /** Spans for each decision (decision/traced.ts); off when absent. */
  tracing?: Tracing;
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
 * Decides one event with the active set, for POST /event, /event/explain and timer ticks. The cost depends only on
 * what the event's action needs (its plan, looked up once):
 *
 * - no plan: the policies are pure; `decide` runs without ports and answers synchronously, nothing is awaited and
 *   the database is never touched;
 * - ports without history: PIPs and PXPs only;
 * - history, action not recorded: every history question is one statement on the pool;
 * - action recorded: the event is recorded with those of the other decisions of its action that arrived together
 *   (HistoryBatcher: one statement under the action's lock), then the decision is taken outside any lock against the
 *   events up to its own — exactly what it would see deciding alone at its turn — and answered once the record is on
 *   disk. PIPs and PXPs are therefore never asked while a lock is held. If recording fails (database down), the
 *   decision is taken with an unavailable history: history-using mechanisms fail closed, the others decide as usual.
 *   If durability cannot be confirmed, the decision is taken again the same way, so nothing is allowed on the
 *   strength of a record that may not exist.
 *
 * Explanations never record and never store: they get a history that only reads and counts the explained event as
 * if it had been recorded; the engine itself never calls PXPs while explaining.
 */
export class Decider {
  /** The engine's options by where the default comes from (the pdp's, or a solution's allow or inhibit), and explain. */
  private readonly variants: Record<'pdp' | DefaultDecision, { decide: DecideOptions; explain: DecideOptions }>;
  private readonly clock: Clock;
  /**
   * Where every answered decision goes as a decision record (decision-records/), after its log line; set by
   * composePdp once the stream is there, undefined while records are off.
   */
  records: DecisionRecordSink | undefined = undefined;
  readonly tracing: Tracing;

  constructor(private readonly deps: DeciderOptions) {
    this.tracing = deps.tracing ?? NO_TRACING;
    const variant = (defaultDecision: DefaultDecision, defaultSource: 'pdp' | 'solution') => {
      const decide: DecideOptions = { defaultDecision, defaultSource, timeZone: deps.timeZone };
      return { decide, explain: { ...decide, explain: true } };
    };
    this.variants = { pdp: variant(deps.defaultDecision, 'pdp'), allow: variant('allow', 'solution'), inhibit: variant('inhibit', 'solution') };
    this.clock = deps.clock ?? SYSTEM_CLOCK;
  }

  /**
   * Decides with the default decision of the event's solution as the active set has it (the solution's settings), or
   * the pdp's `DEFAULT_DECISION` when the solution set none; a decision the default answered says which
   * (`defaultSource`).
   */
  decide(active: ActivePolicySet, event: EngineEvent, solution: string, explain: boolean): EngineDecision | Promise<EngineDecision> {
    const variant = this.variants[active.settings.get(solution)?.defaultDecision ?? 'pdp'];
    const options = explain ? variant.explain : variant.decide;
    const plan = active.history.plan(event.action);
    if (plan === undefined) return decide(active.set, event, options);
    const ports = this.callPorts(active);
    if (explain) {
      const now = this.clock.now();
      const history = plan.usesHistory || plan.record ? this.deps.history?.explainer(plan, event, now, active.deployments) : undefined;
      return decide(active.set, event, options, { ...ports, clock: fixedClock(now), history });
    }
    if (!plan.record) {
      const history = plan.usesHistory ? this.deps.history?.reader(active.revision, active.deployments) : undefined;
      return decide(active.set, event, options, { ...ports, clock: this.clock, history });
    }
    return this.recorded(active, plan, event, solution, ports, options);
  }

  /**
   * Hands the asynchronous executes of a decision to the gateway (never for explanations). A promise when they are
   * being stored durably: the answer waits for it (docs/api.md, "Executes"); undefined when there is nothing to wait for.
   */
  execute(active: ActivePolicySet, decision: EngineDecision, context: { decisionId: string; timerId?: string }): Promise<void> | undefined {
    if (decision.executions.length === 0) return undefined;
    if (this.deps.pxp === undefined) {
      this.deps.logger.error({ ...context, executions: decision.executions.length }, 'no pxp gateway; executes not run');
      return undefined;
    }
    return this.deps.pxp.dispatch(active.components, decision.executions, context);
  }

  private callPorts(active: ActivePolicySet): Pick<EvaluationPorts, 'pip' | 'pxp'> {
    return { pip: this.deps.pip?.bind(active.components), pxp: this.deps.pxp?.executor(active.components) };
  }

  private async recorded(
    active: ActivePolicySet,
    plan: ActionPlan,
    event: EngineEvent,
    solution: string,
    ports: Pick<EvaluationPorts, 'pip' | 'pxp'>,
    options: DecideOptions,
  ): Promise<EngineDecision> {
    const store = this.deps.history;
    const now = this.clock.now();
    if (store === undefined) return decide(active.set, event, options, { ...ports, clock: fixedClock(now) });
    let recorded: RecordedEvent;
    try {
      const keys = store.hasher.eventKeys(event.parameters, plan.filters);
      recorded = await store.batcher.record({ plan, revision: active.revision, solution, keys, now, deployments: active.deployments });
    } catch (error) {
      this.deps.logger.warn({ err: error, action: event.action }, 'event could not be recorded; history-using mechanisms fail closed');
      return decide(active.set, event, options, { ...ports, clock: fixedClock(now), history: UNAVAILABLE_HISTORY });
    }
    const clock = fixedClock(recorded.at);
    // Deciding and the disk flush of the record overlap; the answer waits for both.
    const [decision, durable] = await Promise.all([decide(active.set, event, options, { ...ports, clock, history: recorded.history }), recorded.durable]);
    if (durable) return decision;
    this.deps.logger.warn({ action: event.action }, 'event history record not confirmed on disk; decided again with history-using mechanisms failing closed');
    return decide(active.set, event, options, { ...ports, clock, history: UNAVAILABLE_HISTORY });
  }
}
