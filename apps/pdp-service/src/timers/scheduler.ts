import type { Pool } from 'pg';
import { nextFireTime, type EngineDecision, type EngineEvent, type TimerDocument } from '@custos/policy-engine';
import { uuidv7, type Logger } from '@custos/service-kit';
import { createDecisionLogger, logDecision } from '../decision/log';
import type { Decider } from '../decision/decider';
import type { ActivePolicySet } from '../policy-set/follower';

/** setTimeout cannot wait longer than this; later ticks are approached in steps. */
const MAX_WAIT_MS = 2 ** 31 - 1;

export type TickOutcome = 'fired' | 'claimed-elsewhere' | 'failed';

export interface TimerSchedulerOptions {
  pool: Pool;
  decider: Decider;
  logger: Logger;
  /** POLICY_TIMEZONE: quartz schedules are wall-clock times of this zone. */
  timeZone: string;
  replicaId: string;
  /** The active set when a tick fires. */
  active: () => ActivePolicySet | undefined;
  onTick?: (outcome: TickOutcome) => void;
  /** Called after a fired tick's events were decided (tests). */
  onFired?: (timerId: string, scheduledAt: number, decisions: EngineDecision[]) => void;
}

interface Scheduled {
  timer: TimerDocument;
  next: number;
  handle: NodeJS.Timeout | undefined;
}

/**
 * Fires deployed timers (policy-language.md §10). Every replica schedules every timer; at each tick the replicas
 * race to insert (timer id, scheduled time) into `pdp.timer_ticks`, and only the one whose INSERT … ON CONFLICT DO
 * NOTHING inserted the row fires: exactly once per tick whatever the number of replicas (the primary key decides).
 * A tick that no replica could claim (database down, every replica stopped) is skipped, never fired late twice.
 *
 * Firing decides each `event` of the timer like a PEP's event (recorded in the history when named, PIPs asked),
 * logs the decision and runs its executes; the answer itself goes nowhere.
 */
export class TimerScheduler {
  private readonly scheduled = new Map<string, Scheduled>();
  private readonly running = new Set<Promise<void>>();
  /** Deployed timers with no fire time left: not scheduled again (nor logged again) at each new revision. */
  private readonly exhausted = new WeakSet<TimerDocument>();
  private readonly decisionLog: Logger;
  private stopped = false;

  constructor(private readonly options: TimerSchedulerOptions) {
    this.decisionLog = createDecisionLogger(options.logger);
  }

  /** Follows the deployed timers of a newly active set: new ones are scheduled, gone ones cancelled, changed ones rescheduled. */
  update(active: ActivePolicySet): void {
    if (this.stopped) return;
    for (const [id, entry] of this.scheduled) {
      const current = active.timers.get(id);
      if (current === undefined || current !== entry.timer) {
        clearTimeout(entry.handle);
        this.scheduled.delete(id);
      }
    }
    for (const [id, timer] of active.timers) {
      if (!this.scheduled.has(id) && !this.exhausted.has(timer)) this.schedule(timer, Date.now());
    }
  }

  /** Timers scheduled here, with their next tick (for /status and tests). */
  upcoming(): Array<{ id: string; next: number }> {
    return [...this.scheduled.values()].map((entry) => ({ id: entry.timer.id, next: entry.next }));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const entry of this.scheduled.values()) clearTimeout(entry.handle);
    this.scheduled.clear();
    await Promise.allSettled([...this.running]);
  }

  private schedule(timer: TimerDocument, after: number): void {
    const next = this.nextTick(timer, after);
    if (next === null) {
      // A one-shot or year-bound schedule whose fire times are all past: deployed, but nothing left to fire.
      this.exhausted.add(timer);
      this.options.logger.info({ timerId: timer.id, cron: timer.cron }, 'timer never fires again; not scheduled');
      return;
    }
    const entry: Scheduled = { timer, next, handle: undefined };
    this.scheduled.set(timer.id, entry);
    this.arm(entry);
  }

  /** The first tick strictly after `after` (ms) on the wall clock of POLICY_TIMEZONE, or null when none is left. */
  private nextTick(timer: TimerDocument, after: number): number | null {
    return nextFireTime(timer, new Date(after), this.options.timeZone)?.getTime() ?? null;
  }

  private arm(entry: Scheduled): void {
    const wait = Math.min(Math.max(0, entry.next - Date.now()), MAX_WAIT_MS);
    entry.handle = setTimeout(() => this.wake(entry), wait);
    entry.handle.unref();
  }

  private wake(entry: Scheduled): void {
    if (this.stopped || this.scheduled.get(entry.timer.id) !== entry) return;
    // Timers may wake a little early (or in steps, for far ticks): wait for the rest.
    if (Date.now() < entry.next) return this.arm(entry);
    const scheduledAt = entry.next;
    const task = this.tick(entry.timer, scheduledAt).finally(() => this.running.delete(task));
    this.running.add(task);
    // The next tick is computed from this one, so a slow tick never makes the schedule skip or repeat.
    const next = this.nextTick(entry.timer, Math.max(scheduledAt, Date.now() - 1));
    if (next === null) {
      this.scheduled.delete(entry.timer.id);
      this.exhausted.add(entry.timer);
      this.options.logger.info({ timerId: entry.timer.id, cron: entry.timer.cron }, 'timer fired its last tick');
      return;
    }
    entry.next = next;
    this.arm(entry);
  }

  private async tick(timer: TimerDocument, scheduledAt: number): Promise<void> {
    let claimed: boolean;
    try {
      const result = await this.options.pool.query(
        'INSERT INTO pdp.timer_ticks (timer_id, scheduled_at, replica) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING',
        [timer.id, scheduledAt, this.options.replicaId],
      );
      claimed = result.rowCount === 1;
    } catch (error) {
      this.options.onTick?.('failed');
      this.options.logger.warn({ err: error, timerId: timer.id, scheduledAt }, 'timer tick could not be claimed; skipped');
      return;
    }
    if (!claimed) {
      this.options.onTick?.('claimed-elsewhere');
      return;
    }
    this.options.onTick?.('fired');
    const active = this.options.active();
    if (active === undefined) return;
    const decisions: EngineDecision[] = [];
    for (const fired of timer.events) {
      decisions.push(await this.fire(active, timer, fired.action, fired.parameters, scheduledAt));
    }
    this.options.logger.info({ timerId: timer.id, scheduledAt: new Date(scheduledAt).toISOString(), events: timer.events.length }, 'timer fired');
    this.options.onFired?.(timer.id, scheduledAt, decisions);
  }

  private async fire(
    active: ActivePolicySet,
    timer: TimerDocument,
    action: string,
    parameters: TimerDocument['events'][number]['parameters'],
    scheduledAt: number,
  ): Promise<EngineDecision> {
    const started = process.hrtime.bigint();
    const event: EngineEvent = { action, timestamp: scheduledAt, parameters: new Map(parameters.map((p) => [p.name, p.value])) };
    const decisionId = `urn:decision:${uuidv7()}`;
    const pending = this.options.decider.decide(active, event, timer.solution, false);
    const decision = pending instanceof Promise ? await pending : pending;
    logDecision(this.decisionLog, {
      decisionId,
      requestId: decisionId,
      clientId: timer.id,
      action,
      solution: timer.solution,
      revision: active.revision,
      decision,
      latencyUs: Math.round(Number(process.hrtime.bigint() - started) / 1e3),
      explain: false,
    });
    await this.options.decider.execute(active, decision, { decisionId, timerId: timer.id });
    return decision;
  }
}
