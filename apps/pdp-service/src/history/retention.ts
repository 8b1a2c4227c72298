import type { Pool } from 'pg';
import { onlyRow, type Logger } from '@custos/service-kit';
import type { HistoryIndex } from './plan';

/** Lock key of the retention job: one replica runs it at a time (the others skip that round). */
export const RETENTION_LOCK_KEY = '7364977';
/** Extra time kept beyond the longest span, for clocks that disagree a little. */
export const RETENTION_MARGIN_MS = 60_000;
/** Timer ticks are kept this long (only to stop a second replica firing the same tick). */
export const TICK_RETENTION_MS = 24 * 60 * 60 * 1000;
const BATCH = 5000;

export interface RetentionState {
  revision: number;
  history: HistoryIndex;
}

export interface RetentionOutcome {
  ran: boolean;
  events: number;
  states: number;
  ticks: number;
}

/**
 * Deletes what no deployed policy can still see (policy-language.md §6): events of actions no deployed policy names,
 * events older than the longest span of the policies naming their action (plus a margin; Infinity keeps all), the
 * valueChanged state of policies no longer deployed, and timer ticks older than a day. Only rows written at this
 * replica's revision or before are touched, so a replica that lags behind a deploy never deletes what the newer set
 * records or reads. Deletes run in batches, each its own statement.
 */
export async function runRetention(pool: Pool, state: RetentionState, now: number, logger: Logger): Promise<RetentionOutcome> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    const lock = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1::bigint) AS locked', [RETENTION_LOCK_KEY]);
    if (!onlyRow(lock, 'try the retention lock').locked) return { ran: false, events: 0, states: 0, ticks: 0 };
    try {
      const named = [...state.history.recordedActions];
      const finite = [...state.history.horizons].filter(([, horizon]) => Number.isFinite(horizon));
      const events = await deleteInBatches(
        client,
        `DELETE FROM pdp.history_events WHERE id IN (
           SELECT e.id FROM pdp.history_events e
            WHERE e.revision <= $1
              AND (NOT (e.action = ANY($2::text[]))
                   OR EXISTS (SELECT 1 FROM unnest($3::text[], $4::bigint[]) h(action, cutoff)
                               WHERE h.action = e.action AND e.occurred_at < h.cutoff))
            LIMIT ${BATCH})`,
        [state.revision, named, finite.map(([action]) => action), finite.map(([, horizon]) => Math.trunc(now - horizon - RETENTION_MARGIN_MS))],
      );
      const states = await deleteInBatches(
        client,
        `DELETE FROM pdp.value_changed WHERE (policy_id, block_id) IN (
           SELECT policy_id, block_id FROM pdp.value_changed
            WHERE revision <= $1 AND NOT (policy_id = ANY($2::text[])) LIMIT ${BATCH})`,
        [state.revision, [...state.history.historyPolicies]],
      );
      const ticks = await deleteInBatches(
        client,
        `DELETE FROM pdp.timer_ticks WHERE (timer_id, scheduled_at) IN (
           SELECT timer_id, scheduled_at FROM pdp.timer_ticks WHERE scheduled_at < $1 LIMIT ${BATCH})`,
        [Math.trunc(now - TICK_RETENTION_MS)],
      );
      if (events + states + ticks > 0) logger.info({ events, states, ticks, revision: state.revision }, 'history retention deleted rows');
      return { ran: true, events, states, ticks };
    } finally {
      await client.query('SELECT pg_advisory_unlock($1::bigint)', [RETENTION_LOCK_KEY]);
    }
  } catch (error) {
    broken = error instanceof Error ? error : new Error(String(error));
    throw error;
  } finally {
    client.release(broken);
  }
}

async function deleteInBatches(client: { query: Pool['query'] }, sql: string, params: unknown[]): Promise<number> {
  let total = 0;
  for (;;) {
    const result = await client.query(sql, params);
    total += result.rowCount ?? 0;
    if ((result.rowCount ?? 0) < BATCH) return total;
  }
}

/** Runs retention every `intervalMs` against the state active at that moment; failures are logged and retried next round. */
export class RetentionJob {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;

  constructor(
    private readonly options: {
      pool: Pool;
      logger: Logger;
      intervalMs: number;
      state: () => RetentionState | undefined;
      now?: () => number;
      onDeleted?: (outcome: RetentionOutcome) => void;
    },
  ) {}

  start(): this {
    this.timer = setInterval(() => void this.runOnce(), this.options.intervalMs);
    this.timer.unref();
    return this;
  }

  /** One round now (tests); resolves with what it did, or undefined when there was no state or it failed. */
  async runOnce(): Promise<RetentionOutcome | undefined> {
    const state = this.options.state();
    if (state === undefined || this.running !== undefined) return undefined;
    const task = runRetention(this.options.pool, state, (this.options.now ?? Date.now)(), this.options.logger).then(
      (outcome) => {
        this.options.onDeleted?.(outcome);
        return outcome;
      },
      (error: unknown) => {
        this.options.logger.warn({ err: error }, 'history retention failed; retrying next round');
        return undefined;
      },
    );
    this.running = task;
    try {
      return await task;
    } finally {
      this.running = undefined;
    }
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }
}
