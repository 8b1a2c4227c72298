import type { Pool, PoolClient } from 'pg';
import type { EventHistory } from '@custos/policy-engine';
import type { Logger } from '@custos/service-kit';
import { BatchRound, type BatchEvent } from './batch-history';
import { BatchTransaction } from './batch-transaction';
import type { HistoryHasher } from './hashing';
import type { ActionPlan } from './plan';
import type { HistoryStoreMetrics } from './store';

/** What a member's evaluation under the lock came to. */
export type MemberVerdict<T> =
  | { readonly kind: 'decided'; readonly value: T }
  /** It needs an answer that may only be asked outside the lock (a PIP, a PXP): it leaves the batch unrecorded. */
  | { readonly kind: 'withdrawn' };

/** One decision that records its event. */
export interface BatchEntry<T> {
  readonly plan: ActionPlan;
  readonly revision: number;
  readonly solution: string;
  /** The event's keys (HistoryHasher.eventKeys). */
  readonly keys: readonly string[];
  /** The decision's clock reading when it arrived. */
  readonly now: number;
  /**
   * Decides with `history` at occurrence time `at`, while the action's lock is held: it must ask nothing outside the
   * process. May be called more than once (when another member leaves the batch); only the last answer counts.
   */
  evaluate(history: EventHistory, at: number): Promise<MemberVerdict<T>>;
}

export type BatchOutcome<T> =
  /** The event is committed and `value` was decided with the history as of its place in the batch. */
  | { readonly kind: 'committed'; readonly value: T; readonly at: number }
  /** Nothing was recorded; decide again outside the lock and submit anew. */
  | { readonly kind: 'withdrawn' }
  /** The history could not be opened or committed: nothing of the batch is recorded (fail closed). */
  | { readonly kind: 'unrecorded'; readonly at: number; readonly stage: 'open' | 'commit' };

export interface BatcherOptions {
  pool: Pool;
  hasher: HistoryHasher;
  logger: Logger;
  synchronousCommit: boolean;
  metrics?: HistoryStoreMetrics;
  /** Most decisions in one transaction; more wait for the next one. */
  maxBatch: number;
}

interface Waiting {
  readonly entry: BatchEntry<unknown>;
  readonly resolve: (outcome: BatchOutcome<unknown>) => void;
  readonly reject: (error: unknown) => void;
}

interface Queue {
  waiting: Waiting[];
  running: boolean;
}

/**
 * Group commit for recorded decisions: in each replica, the decisions of one action that arrive while a transaction
 * of that action is running wait and then go together in the next one — one connection, one lock, one commit for
 * up to `maxBatch` decisions. Inside, the decisions are evaluated in arrival order semantics (BatchRound): each
 * sees the events of those before it, so "at most N" stays exact across replicas, and every answer waits for the
 * commit that makes its event durable. A batch waits for nothing but the running one: a lone decision goes at once.
 *
 * A member whose evaluation fails (throws) or withdraws leaves the batch unrecorded; the others are evaluated again
 * without it (reads are kept for the batch, so this costs no round trip), so one decision never fails another.
 */
export class HistoryBatcher {
  private readonly queues = new Map<string, Queue>();

  constructor(private readonly options: BatcherOptions) {}

  submit<T>(entry: BatchEntry<T>): Promise<BatchOutcome<T>> {
    return new Promise<BatchOutcome<T>>((resolve, reject) => {
      const key = entry.plan.lockKey;
      let queue = this.queues.get(key);
      if (queue === undefined) {
        queue = { waiting: [], running: false };
        this.queues.set(key, queue);
      }
      queue.waiting.push({ entry, resolve: resolve as (outcome: BatchOutcome<unknown>) => void, reject });
      if (!queue.running) void this.drain(key, queue);
    });
  }

  private async drain(key: string, queue: Queue): Promise<void> {
    queue.running = true;
    try {
      while (queue.waiting.length > 0) {
        const members = queue.waiting.splice(0, this.options.maxBatch);
        const opened = await this.run(members);
        if (!opened) {
          // The database is out of reach: those who queued meanwhile fail closed now rather than each waiting a timeout.
          const stranded = queue.waiting.splice(0);
          for (const member of stranded) member.resolve({ kind: 'unrecorded', at: member.entry.now, stage: 'open' });
        }
      }
    } finally {
      queue.running = false;
      if (queue.waiting.length === 0) this.queues.delete(key);
      else void this.drain(key, queue);
    }
  }

  /** One batch; false when its transaction could not be opened. Never throws. */
  private async run(members: Waiting[]): Promise<boolean> {
    const first = (members[0] as Waiting).entry;
    const { action, lockKey } = first.plan;
    let client: PoolClient;
    try {
      client = await this.options.pool.connect();
    } catch (error) {
      this.options.metrics?.failures('record');
      this.options.logger.warn({ err: error, action }, 'event history unreachable; history-using mechanisms fail closed');
      for (const member of members) member.resolve({ kind: 'unrecorded', at: member.entry.now, stage: 'open' });
      return false;
    }
    const tx = new BatchTransaction(client, this.options.logger, this.options.metrics);
    let last: number | null;
    try {
      last = await tx.open(lockKey, action, this.options.synchronousCommit);
    } catch (error) {
      this.options.metrics?.failures('record');
      this.options.logger.warn({ err: error, action }, 'event history batch could not start; history-using mechanisms fail closed');
      await tx.rollback(error);
      for (const member of members) member.resolve({ kind: 'unrecorded', at: member.entry.now, stage: 'open' });
      return false;
    }

    let active = members;
    let decided: unknown[] = [];
    let times: number[] = [];
    while (active.length > 0) {
      times = occurrenceTimes(active, last);
      const events: BatchEvent[] = active.map((member, index) => ({
        at: times[index] as number,
        keys: new Set(member.entry.keys),
        revision: member.entry.revision,
      }));
      const round = new BatchRound(tx, this.options.hasher, action, events);
      const verdicts = await Promise.allSettled(
        active.map(async (member, index) => {
          try {
            return await member.entry.evaluate(round.historyOf(index), times[index] as number);
          } finally {
            round.done(index);
          }
        }),
      );
      if (tx.failed) break;
      const staying: Waiting[] = [];
      decided = [];
      verdicts.forEach((verdict, index) => {
        const member = active[index] as Waiting;
        if (verdict.status === 'rejected') member.reject(verdict.reason);
        else if (verdict.value.kind === 'withdrawn') member.resolve({ kind: 'withdrawn' });
        else {
          staying.push(member);
          decided.push(verdict.value.value);
        }
      });
      if (staying.length === active.length) {
        const committed = await tx.commit(
          active.map((member, index) => ({
            action,
            solution: member.entry.solution,
            at: times[index] as number,
            revision: member.entry.revision,
            keys: member.entry.keys,
          })),
          round.valueWrites(),
        );
        active.forEach((member, index) => {
          const at = times[index] as number;
          member.resolve(committed ? { kind: 'committed', value: decided[index], at } : { kind: 'unrecorded', at, stage: 'commit' });
        });
        return true;
      }
      active = staying;
    }
    // A read failed (the transaction is aborted), or every member left.
    await tx.rollback();
    active.forEach((member, index) => member.resolve({ kind: 'unrecorded', at: times[index] ?? member.entry.now, stage: 'commit' }));
    return true;
  }
}

/**
 * Occurrence times in arrival order: never before the action's last recorded event nor the previous member's
 * (replica clocks may differ), otherwise the member's own clock reading.
 */
function occurrenceTimes(members: readonly Waiting[], last: number | null): number[] {
  let floor = last ?? -Infinity;
  return members.map((member) => {
    floor = Math.max(floor, Math.trunc(member.entry.now));
    return floor;
  });
}
