import type { Pool } from 'pg';
import { nextFireTime, type EngineDecision, type EngineEvent, type TimerDocument } from '@custos/policy-engine';
import type { Logger } from '@custos/service-kit';
import { createDecisionLogger, logDecision } from '../decision/log';
import type { Decider } from '../decision/decider';
import { runDecision } from '../decision/pipeline';
import type { ActivePolicySet } from '../policy-set/follower';

/** setTimeout cannot wait longer than this; later ticks are approached in steps. */
const MAX_WAIT_MS = 2 ** 31 - 1;

export type TickOutcome = 'fired' | 'claimed-elsewhere' | 'failed' | 'caught-up' | 'taken-over';

/** How far back missed ticks are looked for when the last one is not known (retention keeps ticks a day). */
const MAX_CATCH_UP_ITERATIONS = 100_000;

export interface TimerSchedulerOptions {
  /** Only single statements: each one is its own transaction. */
  pool: Pick<Pool, 'query'>;
  decider: Decider;
  logger: Logger;
  /** POLICY_TIMEZONE: quartz schedules are wall-clock times of this zone. */
  timeZone: string;
  replicaId: string;
  /** The active set when a tick fires. */
  active: () => ActivePolicySet | undefined;
  onTick?: (outcome: TickOutcome) => void;
  /** A tick missed while no replica could fire it: fired late once (`last`) or never (`skip`). Default `last`. */
  catchUp?: 'last' | 'skip';
  /** How long a claimed tick is its claimer's to fire; unfired past it, another replica fires it (default 60 s). */
  leaseMs?: number;
  /** How often missed and abandoned ticks are looked for (default 10 s); also whenever a timer is scheduled. */
  checkMs?: number;
  /** Called after a fired tick's events were decided (tests). */
  onFired?: (timerId: string, scheduledAt: number, decisions: EngineDecision[]) => void;
}

/** What the database knows of one timer's ticks (see TimerScheduler.lookUp). */
interface KnownTicks {
  abandoned: number[];
  anchor: number | undefined;
}

const NOTHING_KNOWN: KnownTicks = { abandoned: [], anchor: undefined };

interface KnownTicksRow {
  id: string;
  abandoned: string[] | null;
  last: string | null;
  since: string | null;
}

interface Scheduled {
  timer: TimerDocument;
  next: number;
  handle: NodeJS.Timeout | undefined;
}

/**
 * Fires deployed timers (policy-language.md §10). Every replica schedules every timer; at each tick the replicas
 * race to claim (timer id, scheduled time) in `pdp.timer_ticks`, and only the one whose upsert inserted the row (or
 * took over an expired, unfired claim) fires: exactly once per tick whatever the number of replicas (the primary key
 * decides). A fired tick is marked done; one claimed by a replica that died before finishing is fired by another once
 * its lease (`leaseMs`) ran out.
 *
 * Catch-up (`catchUp: 'last'`): when a timer is scheduled, and every `checkMs`, the last tick due since the timer's
 * last claimed tick (or since the replicas first scheduled it, `pdp.timer_schedules`) that nobody claimed — all
 * replicas down, the database unreachable at the tick — is claimed the same way and fired once, late; earlier missed
 * ticks are skipped. With `skip`, a missed tick stays missed.
 *
 * Firing decides each `event` of the timer like a PEP's event (recorded in the history when named, PIPs asked),
 * logs the decision and stores its executes; the answer itself goes nowhere.
 */
export class TimerScheduler {
  private readonly scheduled = new Map<string, Scheduled>();
  private readonly running = new Set<Promise<void>>();
  /** Deployed timers with no fire time left: not scheduled again (nor logged again) at each new revision. */
  private readonly exhausted = new WeakSet<TimerDocument>();
  private readonly decisionLog: Logger;
  private stopped = false;
  private checker: NodeJS.Timeout | undefined;
  private checking: Promise<void> | undefined;
  /** Whether the last set seen had timers; undefined before the first. */
  private hadTimers: boolean | undefined;

  constructor(private readonly options: TimerSchedulerOptions) {
    this.decisionLog = createDecisionLogger(options.logger);
  }

  /** Follows the deployed timers of a newly active set: new ones are scheduled, gone ones cancelled, changed ones rescheduled. */
  update(active: ActivePolicySet): void {
    if (this.stopped) return;
    const added: TimerDocument[] = [];
    for (const [id, entry] of this.scheduled) {
      const current = active.timers.get(id);
      if (current === undefined || current !== entry.timer) {
        clearTimeout(entry.handle);
        this.scheduled.delete(id);
      }
    }
    for (const [id, timer] of active.timers) {
      if (!this.scheduled.has(id) && !this.exhausted.has(timer)) {
        this.schedule(timer, Date.now());
        added.push(timer);
      }
    }
    // Sets without timers after sets without timers have nothing to remember or forget: no statement per revision.
    const hasTimers = active.timers.size > 0;
    if (hasTimers || this.hadTimers !== false) this.track(this.running, this.remember(active, added));
    this.hadTimers = hasTimers;
    if (this.checker === undefined) {
      this.checker = setInterval(() => this.check(), this.options.checkMs ?? 10_000);
      this.checker.unref();
    }
  }

  /**
   * Keeps when the replicas first scheduled each timer (the earliest tick ever caught up), and forgets timers this
   * set no longer deploys (only rows written at an older revision: a lagging replica never forgets a newer timer).
   * Then looks for missed ticks of the new timers.
   */
  private async remember(active: ActivePolicySet, added: readonly TimerDocument[]): Promise<void> {
    try {
      await this.options.pool.query(
        `WITH gone AS (DELETE FROM pdp.timer_schedules WHERE NOT (timer_id = ANY($1::text[])) AND revision < $2)
         INSERT INTO pdp.timer_schedules (timer_id, since, revision)
           SELECT id, $3, $2 FROM unnest($1::text[]) AS id
         ON CONFLICT (timer_id) DO NOTHING`,
        [[...active.timers.keys()], active.revision, Date.now()],
      );
    } catch (error) {
      this.options.logger.warn({ err: error }, 'timer schedules could not be stored; missed ticks are looked for later');
      return;
    }
    if (added.length > 0) await this.catchUp(added);
  }

  /** One pass over every deployed timer: missed ticks, and ticks claimed by a replica that died before firing. */
  private check(): void {
    if (this.stopped || this.checking !== undefined) return;
    const active = this.options.active();
    if (active === undefined || active.timers.size === 0) return;
    this.checking = this.catchUp([...active.timers.values()]).finally(() => (this.checking = undefined));
  }

  /**
   * Fires the abandoned and the missed ticks of `timers`, after one statement has read what is known of all of them:
   * a check costs one round trip however many timers are deployed.
   */
  private async catchUp(timers: readonly TimerDocument[]): Promise<void> {
    const now = Date.now();
    const known = await this.lookUp(timers, now);
    if (known === undefined) return;
    for (const timer of timers) {
      if (this.stopped) return;
      const { abandoned, anchor } = known.get(timer.id) ?? NOTHING_KNOWN;
      for (const scheduledAt of abandoned) await this.tick(timer, scheduledAt, 'taken-over');
      if ((this.options.catchUp ?? 'last') === 'skip' || anchor === undefined) continue;
      const missed = this.lastTickBefore(timer, anchor, now);
      if (missed !== undefined) await this.tick(timer, missed, 'caught-up');
    }
  }

  /**
   * For each timer: its ticks claimed but left unfired past their lease (`abandoned`), and the later of its last
   * claimed tick and when the replicas first scheduled it (`anchor`, undefined when neither is known). Undefined when
   * the database cannot be asked (logged; the next check asks again).
   */
  private async lookUp(timers: readonly TimerDocument[], now: number): Promise<Map<string, KnownTicks> | undefined> {
    let rows: KnownTicksRow[];
    try {
      const result = await this.options.pool.query<KnownTicksRow>(
        `SELECT t.id,
                (SELECT array_agg(scheduled_at) FROM pdp.timer_ticks WHERE timer_id = t.id AND done_at IS NULL AND claimed_until < $2) AS abandoned,
                (SELECT max(scheduled_at) FROM pdp.timer_ticks WHERE timer_id = t.id) AS last,
                (SELECT since FROM pdp.timer_schedules WHERE timer_id = t.id) AS since
           FROM unnest($1::text[]) AS t(id)`,
        [timers.map((timer) => timer.id), now],
      );
      rows = result.rows;
    } catch (error) {
      this.options.logger.warn({ err: error, timers: timers.length }, 'missed timer ticks could not be looked for; trying again later');
      return undefined;
    }
    const known = new Map<string, KnownTicks>();
    for (const row of rows) {
      const anchors = [row.last, row.since].filter((value): value is string => value !== null).map(Number);
      known.set(row.id, { abandoned: (row.abandoned ?? []).map(Number), anchor: anchors.length === 0 ? undefined : Math.max(...anchors) });
    }
    return known;
  }

  /**
   * The last tick strictly after `after` and before `before`, if any. Searched backwards from `before` in doubling
   * windows, so a dense schedule after a long outage costs about as many steps as ticks in the last window.
   */
  private lastTickBefore(timer: TimerDocument, after: number, before: number): number | undefined {
    for (let width = 1000; ; width *= 2) {
      const from = Math.max(after, before - width);
      let last: number | undefined;
      let at = this.nextTick(timer, from);
      for (let steps = 0; at !== null && at < before && steps < MAX_CATCH_UP_ITERATIONS; steps++) {
        last = at;
        at = this.nextTick(timer, at);
      }
      if (last !== undefined || from === after) return last;
    }
  }

  private track(set: Set<Promise<void>>, task: Promise<void>): void {
    const tracked = task.finally(() => set.delete(tracked));
    set.add(tracked);
  }

  /** Timers scheduled here, with their next tick (for /status and tests). */
  upcoming(): Array<{ id: string; next: number }> {
    return [...this.scheduled.values()].map((entry) => ({ id: entry.timer.id, next: entry.next }));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.checker);
    await this.checking;
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

  /**
   * Claims a tick and fires it when the claim is ours: a new row, or one whose claimer let its lease run out without
   * marking it done. `how` names ticks fired other than on time, for the log and the metric.
   */
  private async tick(timer: TimerDocument, scheduledAt: number, how: 'on-time' | 'caught-up' | 'taken-over' = 'on-time'): Promise<void> {
    let claimed: boolean;
    try {
      const now = Date.now();
      const result = await this.options.pool.query(
        `INSERT INTO pdp.timer_ticks (timer_id, scheduled_at, replica, claimed_until) VALUES ($1, $2, $3, $4)
         ON CONFLICT (timer_id, scheduled_at) DO UPDATE SET replica = EXCLUDED.replica, claimed_until = EXCLUDED.claimed_until, claimed_at = now()
           WHERE pdp.timer_ticks.done_at IS NULL AND pdp.timer_ticks.claimed_until < $5`,
        [timer.id, scheduledAt, this.options.replicaId, now + (this.options.leaseMs ?? 60_000), now],
      );
      claimed = result.rowCount === 1;
    } catch (error) {
      this.options.onTick?.('failed');
      this.options.logger.warn({ err: error, timerId: timer.id, scheduledAt }, 'timer tick could not be claimed; it is looked for again later');
      return;
    }
    if (!claimed) {
      if (how === 'on-time') this.options.onTick?.('claimed-elsewhere');
      return;
    }
    this.options.onTick?.(how === 'on-time' ? 'fired' : how);
    const active = this.options.active();
    if (active === undefined) return;
    const decisions: EngineDecision[] = [];
    for (const fired of timer.events) {
      decisions.push(await this.fire(active, timer, fired.action, fired.parameters, scheduledAt));
    }
    try {
      await this.options.pool.query('UPDATE pdp.timer_ticks SET done_at = $3 WHERE timer_id = $1 AND scheduled_at = $2', [timer.id, scheduledAt, Date.now()]);
    } catch (error) {
      // Left undone, the tick is fired again after its lease: at least once rather than not at all.
      this.options.logger.warn({ err: error, timerId: timer.id, scheduledAt }, 'fired timer tick could not be marked done');
    }
    const line = { timerId: timer.id, scheduledAt: new Date(scheduledAt).toISOString(), events: timer.events.length };
    this.options.logger.info(how === 'on-time' ? line : { ...line, how }, 'timer fired');
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
    // The decision pipeline (decision/pipeline.ts) as POST /event runs it: decide, id, executes stored, then the line.
    const pending = runDecision(this.options.decider, { active, event, solution: timer.solution, explain: false, timerId: timer.id });
    const { decisionId, decision, stored } = pending instanceof Promise ? await pending : pending;
    const record = {
      decisionId,
      requestId: decisionId,
      clientId: timer.id,
      action,
      solution: timer.solution,
      revision: active.revision,
      decision,
      latencyUs: Math.round(Number(process.hrtime.bigint() - started) / 1e3),
      explain: false,
    };
    logDecision(this.decisionLog, record);
    this.options.decider.records?.add(record, event);
    await stored;
    return decision;
  }
}
