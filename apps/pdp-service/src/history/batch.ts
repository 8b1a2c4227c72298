import type { Pool, PoolClient } from 'pg';
import type { EventHistory, ValueChangedRequest } from '@custos/policy-engine';
import type { Logger } from '@custos/service-kit';
import { ActionCounts } from './action-counts';
import { RecordedHistory } from './batch-history';
import { RECORD_EVENTS_STATEMENT } from './batch-sql';
import { isConnectionError } from './connection';
import { DurabilityWaiter } from './durability';
import type { HistoryHasher } from './hashing';
import { NO_DEPLOYMENTS, type Deployments } from './deployments';
import type { ActionPlan } from './plan';
import { PoolReads } from './pool-reads';
import type { HistoryStoreMetrics } from './store';

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
   * Resolves true once the event is on disk (at once with `PDP_HISTORY_SYNC_COMMIT=off`), false when that could not
   * be confirmed: the decision must then not be answered on the strength of this record.
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
  /** valueChanged of recorded decisions (the store's atomic compare-and-store on the pool). */
  valueChanged: (request: ValueChangedRequest, revision: number, deployments: Deployments) => Promise<boolean>;
}

/** Most events a batch hands back from those recorded since the replica's previous batch of the action. */
export const CATCH_UP_LIMIT = 10_000;

interface Waiting {
  readonly request: RecordRequest;
  /** performance.now() when it was queued. */
  readonly queuedAt: number;
  readonly resolve: (recorded: RecordedEvent) => void;
  readonly reject: (error: unknown) => void;
}

interface Queue {
  waiting: Waiting[];
  running: boolean;
}

interface RecordedRow {
  id: string;
  at: string;
  keys: string[];
  /** The events this replica knew of are gone (deleted): start over from these. */
  fresh: boolean;
}

/**
 * Group recording of the events of recorded decisions. In each replica, the decisions of one action that arrive while
 * a batch of that action is being recorded wait, then go together: one statement (pdp.record_events) takes the
 * action's lock, inserts their events in arrival order and commits, the lock held for the inserts only. Each decision
 * then decides outside any lock, against the events up to its own (RecordedHistory), and is answered once the batch
 * is on disk. A batch waits for nothing but the one before it: a lone decision goes at once. A failure to record
 * fails the decisions of that batch closed; a failure while deciding concerns that decision only.
 */
export class HistoryBatcher {
  private readonly queues = new Map<string, Queue>();
  /** Per action: what this replica knows of the action's events, under the plan it was learnt with. */
  private readonly known = new Map<string, { plan: ActionPlan; counts: ActionCounts }>();
  private readonly reads: PoolReads;
  private readonly disk: DurabilityWaiter;

  constructor(private readonly options: BatcherOptions) {
    this.reads = new PoolReads(options.pool, options.logger, options.metrics);
    this.disk = new DurabilityWaiter(options.pool, options.logger, options.metrics);
  }

  /** Records the event with those of its batch; rejects when it could not be recorded (nothing is then recorded). */
  record(request: RecordRequest): Promise<RecordedEvent> {
    return new Promise<RecordedEvent>((resolve, reject) => {
      const key = request.plan.action;
      let queue = this.queues.get(key);
      if (queue === undefined) {
        queue = { waiting: [], running: false };
        this.queues.set(key, queue);
      }
      queue.waiting.push({ request, queuedAt: performance.now(), resolve, reject });
      if (!queue.running) void this.drain(key, queue);
    });
  }

  private async drain(key: string, queue: Queue): Promise<void> {
    queue.running = true;
    while (queue.waiting.length > 0) {
      const batch = queue.waiting.splice(0, this.options.maxBatch);
      let failure: unknown;
      try {
        failure = await this.recordBatch(batch);
      } catch (error) {
        // Not expected (recordBatch handles the database's errors); the queue must go on all the same.
        failure = this.failed(batch, error, batch[0]?.request.plan.action ?? '');
      }
      if (failure !== undefined) {
        // The database is out of reach: those who queued meanwhile fail closed now rather than each waiting a timeout.
        for (const member of queue.waiting.splice(0)) member.reject(failure);
      }
    }
    queue.running = false;
    this.queues.delete(key);
  }

  /**
   * Records one batch and hands each member its RecordedEvent as soon as the lock is released; durability is awaited
   * in the background (DurabilityWaiter), so the next batch of the action need not wait for this one's disk flush. Resolves the error
   * when the batch could not be recorded. Never throws.
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
    let rows: RecordedRow[];
    try {
      const since = counts.last;
      const result = await client.query<RecordedRow>(RECORD_EVENTS_STATEMENT, [
        lockKey,
        action,
        since?.id ?? null,
        since?.at ?? null,
        batch.map((member) => member.request.solution),
        batch.map((member) => Math.trunc(member.request.now)),
        batch.map((member) => member.request.revision),
        batch.map((member) => member.request.keys.join(' ')),
        CATCH_UP_LIMIT,
      ]);
      rows = result.rows;
      client.release();
      phase?.('record', (performance.now() - connected) / 1000);
    } catch (error) {
      client.release(error instanceof Error && isConnectionError(error) ? error : undefined);
      return this.failed(batch, error, action);
    }
    const events = rows.map((row) => ({ id: Number(row.id), at: Number(row.at), keys: new Set(row.keys) }));
    counts.catchUp(events, rows.length < CATCH_UP_LIMIT && rows[0]?.fresh !== true);
    // The batch's own events are the newest: the last `batch.length` rows, in arrival order.
    const own = events.slice(events.length - batch.length);
    const committed = performance.now();
    const durable = this.options.synchronousCommit ? this.disk.afterCommit() : Promise.resolve(true);
    if (phase) void durable.then(() => phase('durable', (performance.now() - committed) / 1000));
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
        durable,
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
