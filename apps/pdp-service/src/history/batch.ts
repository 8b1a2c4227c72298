import type { Pool, PoolClient } from 'pg';
import type { EventHistory, ValueChangedRequest } from '@custos/policy-engine';
import { NO_TRACING, type Logger, type Tracing } from '@custos/service-kit';
import { ActionCounts } from './action-counts';
import { RecordedHistory } from './batch-history';
import { recordBatchQuery, recordedEvents, type RecordedTuple } from './batch-sql';
import type { HistoryHasher } from './hashing';
import { NO_DEPLOYMENTS, type Deployments } from './deployments';
import type { ActionPlan } from './plan';
import { PoolReads } from './pool-reads';
import type { HistoryStoreMetrics } from './store';
import { historySpan, type AwaitingRoundTrip } from './trace';

/** One decision's event to record. */
export interface RecordRequest {
  readonly plan: ActionPlan;
  readonly revision: number;
  readonly solution: string;
  /** The event's keys (HistoryHasher.eventKeys). */
  readonly keys: readonly string[];
  /** The decision's clock reading when it arrived. */
  readonly now: number;
  /** The deployments of the set the decision is made with (valueChanged state is kept per deployment). */
  readonly deployments?: Deployments;
}

/** A recorded event: its occurrence time (the decision's "now"), the history to decide with, and its durability. */
export interface RecordedEvent {
  /** Its id: for one action, ids grow in the order of the lock. */
  readonly id: number;
  readonly at: number;
  readonly history: EventHistory;
  /**
   * Resolves true once the event is on disk, false when that could not be confirmed: the decision must then not be
   * answered on the strength of this record. A batch is handed out only after its flush (or, with
   * `PDP_HISTORY_SYNC_COMMIT=off`, without one), so this is already resolved true.
   */
  readonly durable: Promise<boolean>;
}

export interface BatcherOptions {
  pool: Pool;
  hasher: HistoryHasher;
  logger: Logger;
  synchronousCommit: boolean;
  metrics?: HistoryStoreMetrics;
  /** Most events recorded by one statement; more wait for the next one. */
  maxBatch: number;
  /** Most batches of one action a replica has in flight at once (each on its own connection); more decisions wait. */
  inFlight: number;
  /**
   * How long the first decision of a batch waits for others before the batch goes (ms; 0: at once). Fewer, bigger
   * batches cost less CPU per decision (one round trip, transaction and flush each), for up to this much latency.
   */
  windowMs?: number;
  /** valueChanged of recorded decisions (the store's atomic compare-and-store on the pool). */
  valueChanged: (request: ValueChangedRequest, revision: number, deployments: Deployments) => Promise<boolean>;
  /** A span per batch (history/trace.ts); off when absent. */
  tracing?: Tracing;
}

const DURABLE = Promise.resolve(true);

/** Most events a batch hands back from those recorded since the replica's previous batch of the action. */
export const CATCH_UP_LIMIT = 10_000;

interface Waiting extends AwaitingRoundTrip<RecordedEvent> {
  readonly request: RecordRequest;
  /** performance.now() when it was queued. */
  readonly queuedAt: number;
}

interface Queue {
  waiting: Waiting[];
  /** Batches of the action this replica has sent and not yet had answered. */
  running: number;
  /** The window's timer while the next batch waits for company (windowMs). */
  timer?: NodeJS.Timeout;
}

/**
 * Group recording of the events of recorded decisions. In each replica, a decision of an action goes at once while
 * fewer than `inFlight` batches of that action are on their way; those that arrive meanwhile wait and go together as
 * the next batch. A batch is one round trip (recordBatchQuery): one prepared statement (pdp.record_batch) takes the
 * action's lock, inserts the batch's events in arrival order and commits without waiting for the disk (the lock is
 * held for the inserts only), then a flush in the same statement makes them durable. Each decision then decides
 * outside any lock, against the events up to its own (RecordedHistory) — durable before it is decided, so before it
 * is answered. Batches of one replica in flight together take the lock in whichever order they reach it; each event
 * counts exactly the events before it in lock order. A failure to record fails the decisions of that batch closed;
 * a failure while deciding concerns that decision only.
 */
export class HistoryBatcher {
  private readonly queues = new Map<string, Queue>();
  /** Per action: what this replica knows of the action's events, under the plan it was learnt with. */
  private readonly known = new Map<string, { plan: ActionPlan; counts: ActionCounts }>();
  private readonly reads: PoolReads;
  private readonly tracing: Tracing;

  constructor(private readonly options: BatcherOptions) {
    this.tracing = options.tracing ?? NO_TRACING;
    this.reads = new PoolReads(options.pool, options.logger, options.metrics, this.tracing);
  }

  /** Records the event with those of its batch; rejects when it could not be recorded (nothing is then recorded). */
  record(request: RecordRequest): Promise<RecordedEvent> {
    return new Promise<RecordedEvent>((resolve, reject) => {
      const key = request.plan.action;
      let queue = this.queues.get(key);
      if (queue === undefined) {
        queue = { waiting: [], running: 0 };
        this.queues.set(key, queue);
      }
      const trace = this.tracing.enabled ? this.tracing.activeSpanContext() : undefined;
      queue.waiting.push({ request, queuedAt: performance.now(), resolve, reject, trace });
      this.send(key, queue);
    });
  }

  /** Sends the waiting decisions as batches while fewer than `inFlight` of the action's are on their way. */
  private send(key: string, queue: Queue): void {
    const windowMs = this.options.windowMs ?? 0;
    if (windowMs > 0 && queue.running < this.options.inFlight && queue.waiting.length > 0 && queue.waiting.length < this.options.maxBatch) {
      // The window runs from the arrival of the oldest waiting decision, so time it spent behind a batch in flight
      // counts toward it; a full batch goes at once.
      const left = (queue.waiting[0] as Waiting).queuedAt + windowMs - performance.now();
      if (left >= 1) {
        queue.timer ??= setTimeout(() => {
          queue.timer = undefined;
          // Those who waited may have failed closed meanwhile (a batch in flight failed, inFlight > 1).
          if (queue.running === 0 && queue.waiting.length === 0) this.queues.delete(key);
          else this.sendNow(key, queue);
        }, left);
        return;
      }
    }
    if (queue.timer !== undefined) {
      clearTimeout(queue.timer);
      queue.timer = undefined;
    }
    this.sendNow(key, queue);
  }

  private sendNow(key: string, queue: Queue): void {
    while (queue.running < this.options.inFlight && queue.waiting.length > 0) {
      const batch = queue.waiting.splice(0, this.options.maxBatch);
      queue.running += 1;
      void this.run(batch).then((failure) => {
        queue.running -= 1;
        // The database is out of reach: those who queued meanwhile fail closed now rather than each waiting a timeout.
        if (failure !== undefined) for (const member of queue.waiting.splice(0)) member.reject(failure);
        if (queue.running === 0 && queue.waiting.length === 0 && queue.timer === undefined) this.queues.delete(key);
        else this.send(key, queue);
      });
    }
  }

  private async run(batch: Waiting[]): Promise<unknown> {
    const action = batch[0]?.request.plan.action ?? '';
    const span = this.tracing.enabled
      ? historySpan(this.tracing, 'custos.history.record', batch.map((member) => member.trace), { 'custos.action': action, 'custos.history.events': batch.length })
      : undefined;
    let failure: unknown;
    try {
      failure = await this.recordBatch(batch);
    } catch (error) {
      // Not expected (recordBatch handles the database's errors); the queue must go on all the same.
      failure = this.failed(batch, error, action);
    }
    if (span !== undefined) this.tracing.end(span, failure);
    return failure;
  }

  /**
   * Records one batch, durably unless `synchronousCommit` is off, in one round trip, and hands each member its
   * RecordedEvent. Resolves the error when the batch could not be recorded or its flush not confirmed (its members
   * then fail closed, whether or not the recording committed). Never throws.
   */
  private async recordBatch(batch: Waiting[]): Promise<unknown> {
    const first = (batch[0] as Waiting).request;
    const { action, lockKey } = first.plan;
    const counts = this.countsFor(first.plan);
    const started = performance.now();
    const phase = this.options.metrics?.phase?.bind(this.options.metrics);
    if (phase) for (const member of batch) phase('queue', (started - member.queuedAt) / 1000);
    let client: PoolClient;
    try {
      client = await this.options.pool.connect();
    } catch (error) {
      return this.failed(batch, error, action);
    }
    const connected = performance.now();
    phase?.('connect', (connected - started) / 1000);
    // Each row: id, at, keys, and `fresh` — the events this replica knew of are gone (deleted): start over from these.
    let rows: RecordedTuple[];
    const since = counts.last;
    try {
      const query = recordBatchQuery(
        {
          lockKey,
          action,
          since,
          solutions: batch.map((member) => member.request.solution),
          nows: batch.map((member) => Math.trunc(member.request.now)),
          revisions: batch.map((member) => member.request.revision),
          keys: batch.map((member) => member.request.keys.join(' ')),
          limit: CATCH_UP_LIMIT,
        },
        this.options.synchronousCommit,
      );
      rows = recordedEvents((await client.query<{ events?: unknown }>(query)).rows);
      client.release();
      phase?.('record', (performance.now() - connected) / 1000);
    } catch (error) {
      // Not handed out again: what state an error mid-procedure left the connection in is not worth reasoning about.
      client.release(error instanceof Error ? error : new Error(String(error)));
      return this.failed(batch, error, action);
    }
    const events = rows.map(([id, at, keys]) => ({ id, at, keys: new Set(keys) }));
    // Every event after `since` came back, unless the limit cut them (then only those returned count) or `since`
    // was deleted (then only the batch's own came back, and what was counted before may include deleted events).
    const deleted = rows[0]?.[3] === true;
    if (deleted) counts.forget();
    const whole = since !== undefined && !deleted && rows.length < CATCH_UP_LIMIT;
    counts.catchUp(events, whole ? since.id : (events[0]?.id ?? 0) - 1);
    // The batch's own events are the newest it saw: the last `batch.length` rows, in arrival order.
    const own = events.slice(events.length - batch.length);
    this.options.logger.debug({ action, events: batch.length, seen: events.length, ms: Math.round((performance.now() - started) * 100) / 100 }, 'events recorded');
    batch.forEach((member, index) => {
      const event = own[index];
      if (event === undefined) {
        member.reject(new Error('the event history did not return the recorded event'));
        return;
      }
      const { revision, deployments = NO_DEPLOYMENTS } = member.request;
      member.resolve({
        id: event.id,
        at: event.at,
        history: new RecordedHistory(action, event.id, event.at, counts, this.reads, this.options.hasher, (request) =>
          this.options.valueChanged(request, revision, deployments),
        ),
        durable: DURABLE,
      });
    });
    return undefined;
  }

  private failed(batch: Waiting[], error: unknown, action: string): unknown {
    this.options.metrics?.failures('record');
    this.options.logger.warn({ err: error, action, events: batch.length }, 'events could not be recorded; history-using mechanisms fail closed');
    for (const member of batch) member.reject(error);
    return error;
  }

  /**
   * What this replica knows of the plan's action. A new policy set brings new plan objects even when nothing about
   * the action changed (a periodic resync, a deploy of another policy's action): what was learnt is kept then, since
   * forgetting it would have every count of the action counted again from its rows, at once. A plan that records
   * other filters, or lets retention keep its events for another span (a count remembered could then include events
   * retention deletes), starts over.
   */
  private countsFor(plan: ActionPlan): ActionCounts {
    let known = this.known.get(plan.action);
    if (known === undefined || (known.plan !== plan && !samePlan(known.plan, plan))) {
      known = { plan, counts: new ActionCounts() };
      this.known.set(plan.action, known);
    } else known.plan = plan;
    return known.counts;
  }
}

/** Plans of one action that record and hash events the same way. */
function samePlan(a: ActionPlan, b: ActionPlan): boolean {
  if (a.action !== b.action || a.lockKey !== b.lockKey || a.horizonMs !== b.horizonMs || a.filters.length !== b.filters.length) return false;
  const paths = (plan: ActionPlan): string[] => plan.filters.map((filter) => JSON.stringify([filter.name, filter.path])).sort();
  const left = paths(a);
  return paths(b).every((path, index) => path === left[index]);
}
