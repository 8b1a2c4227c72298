import type { Pool, PoolClient } from 'pg';
import type { EngineEvent, EventHistory, HistoryQuery, TimeSpan, ValueChangedRequest } from '@custos/policy-engine';
import { onlyRow, type Logger, type Tracing } from '@custos/service-kit';
import { HistoryBatcher } from './batch';
import { isConnectionError } from './connection';
import { deploymentOf, NO_DEPLOYMENTS, type Deployments } from './deployments';
import type { HistoryHasher } from './hashing';
import type { ActionPlan } from './plan';
import { ExplainingHistory } from './explaining';

/** Bounds of spans as bigint-safe numbers (`from` may be -Infinity in the engine). */
const EARLIEST = Number.MIN_SAFE_INTEGER;
const LATEST = Number.MAX_SAFE_INTEGER;
const bound = (value: number): number => (value === -Infinity ? EARLIEST : value === Infinity ? LATEST : Math.trunc(value));

export interface HistoryStoreMetrics {
  /** Failed history operations by `op` (record, count, occurrence, valueChanged, commit). */
  failures(op: string): void;
  /** How long a phase of recorded decisions took (HISTORY_PHASES), in seconds: where a decision's latency goes. */
  phase?(phase: HistoryPhase, seconds: number): void;
}

/**
 * The phases of a recorded decision, timed by the batcher: `queue` (per decision) waiting for a batch of its action
 * to go from this replica; `connect` (per batch) waiting for a pool connection; `record` (per batch) the round trip
 * that records the batch and flushes it to disk, with the wait for the action's lock (other batches) and for the WAL
 * flush inside it; `read` (per round trip) the reads a count not known from the batches needs.
 */
export const HISTORY_PHASES = ['queue', 'connect', 'record', 'read'] as const;
export type HistoryPhase = (typeof HISTORY_PHASES)[number];

export interface HistoryStoreOptions {
  pool: Pool;
  hasher: HistoryHasher;
  logger: Logger;
  /** false: history transactions commit with `synchronous_commit = off` and recorded decisions are answered without a disk flush (faster, may lose the last events on a crash). */
  synchronousCommit?: boolean;
  metrics?: HistoryStoreMetrics;
  /** Most recorded decisions of one action committed together (HistoryBatcher); 64 by default. */
  maxBatch?: number;
  /** Most batches of one action a replica has on their way at once (HistoryBatcher); DEFAULT_IN_FLIGHT by default. */
  inFlight?: number;
  /** How long a batch's first decision waits for others (HistoryBatcher, ms); 0 (at once) by default. */
  batchWindowMs?: number;
  /** Spans for the batched history statements (history/trace.ts); off when absent. */
  tracing?: Tracing;
}

/** Enough for every connection of a busy replica to join one transaction, small enough to keep it short. */
export const DEFAULT_MAX_BATCH = 64;
/**
 * One: the decisions that arrive while a batch records and flushes all go in the next one, so every round trip,
 * transaction and disk flush is shared by as many decisions as possible — on a busy machine CPU per decision is what
 * bounds throughput. Two in flight (each batch on its own connection) made batches smaller and cost ~1.5× the
 * database CPU per decision, for no gain in latency (BENCHMARKS.md, issue 26 item 1).
 */
export const DEFAULT_IN_FLIGHT = 1;

type Db = Pick<Pool, 'query'> | PoolClient;

/**
 * The event history of policy-language.md §6 in PostgreSQL (schema `pdp`). Four kinds of port:
 *
 * - `batcher`: how decisions record (HistoryBatcher): the events of the decisions of one action that arrive together
 *   are recorded by one statement under the action's lock; each decision then decides against the events up to its
 *   own, and is answered once they are on disk.
 * - `record`: a transaction of one decision (kept for tools and tests) that records the event under the exclusive advisory lock of its action, then answers
 *   the engine's questions inside the same transaction, and commits before the answer is sent. Every decision of
 *   that action holds the lock from before its record until its commit, so these decisions are totally ordered and
 *   each one's counts see every event of the action recorded before it (by any replica): a limit "at most N" cannot
 *   be exceeded (docs/api.md, "Exactness across replicas").
 * - `reader`: for decisions whose action is not recorded; every question is one statement on the pool (READ
 *   COMMITTED: it sees every event committed before it), `valueChanged` a single atomic upsert.
 * - `explainer`: a reader that never writes, answering as if the explained event had been recorded.
 */
export class PgHistoryStore {
  private batches: HistoryBatcher | undefined;

  constructor(private readonly options: HistoryStoreOptions) {}

  get hasher(): HistoryHasher {
    return this.options.hasher;
  }

  /** The group commit of recorded decisions (one per store, so one queue per action in a replica). */
  get batcher(): HistoryBatcher {
    this.batches ??= new HistoryBatcher({
      pool: this.options.pool,
      hasher: this.options.hasher,
      logger: this.options.logger,
      synchronousCommit: this.options.synchronousCommit !== false,
      metrics: this.options.metrics,
      maxBatch: this.options.maxBatch ?? DEFAULT_MAX_BATCH,
      inFlight: this.options.inFlight ?? DEFAULT_IN_FLIGHT,
      windowMs: this.options.batchWindowMs ?? 0,
      ...(this.options.tracing === undefined ? {} : { tracing: this.options.tracing }),
      valueChanged: (request, revision, deployments) => new HistoryQueries(this.options.pool, this.options, revision, deployments).valueChanged(request),
    });
    return this.batches;
  }

  /** Opens the transaction and records the event; rejects when the database cannot be reached. */
  async record(
    plan: ActionPlan,
    event: EngineEvent,
    solution: string,
    revision: number,
    now: number,
    deployments: Deployments = NO_DEPLOYMENTS,
  ): Promise<RecordingSession> {
    const keys = this.options.hasher.eventKeys(event.parameters, plan.filters);
    let client: PoolClient;
    try {
      client = await this.options.pool.connect();
    } catch (error) {
      this.options.metrics?.failures('record');
      throw error;
    }
    const session = new RecordingSession(client, this.options, revision, deployments);
    try {
      await client.query(this.options.synchronousCommit === false ? 'BEGIN; SET LOCAL synchronous_commit = off' : 'BEGIN');
      const recorded = await client.query<{ at: string }>('SELECT pdp.record_event($1, $2, $3, $4, $5, $6) AS at', [
        plan.lockKey,
        plan.action,
        solution,
        Math.trunc(now),
        revision,
        keys,
      ]);
      session.occurredAt = Number(onlyRow(recorded, 'record the event').at);
      return session;
    } catch (error) {
      this.options.metrics?.failures('record');
      await session.rollback(error);
      throw error;
    }
  }

  /** Questions answered on the pool, for decisions that record nothing. */
  reader(revision: number, deployments: Deployments = NO_DEPLOYMENTS): EventHistory {
    return new HistoryQueries(this.options.pool, this.options, revision, deployments);
  }

  /** A reader that never writes and counts the explained event as if it had been recorded at `now`. */
  explainer(plan: ActionPlan | undefined, event: EngineEvent, now: number, deployments: Deployments = NO_DEPLOYMENTS): EventHistory {
    const own =
      plan?.record === true ? { action: event.action, at: now, keys: new Set(this.options.hasher.eventKeys(event.parameters, plan.filters)) } : null;
    return new ExplainingHistory(new HistoryQueries(this.options.pool, this.options, -1, deployments), this.options.hasher, own);
  }
}

/** The SQL behind the EventHistory port, on the pool or on a transaction's client. */
class HistoryQueries implements EventHistory {
  /** True once a statement failed (inside a transaction, the transaction is then aborted). */
  failed = false;
  /** On a transaction's client, statements run one after the other (the engine may ask from several mechanisms at once). */
  private tail: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly db: Db,
    private readonly options: HistoryStoreOptions,
    private readonly revision: number,
    private readonly deployments: Deployments,
    private readonly serial = false,
  ) {}

  async count(query: HistoryQuery, spans: readonly TimeSpan[]): Promise<readonly number[]> {
    if (spans.length === 0) return [];
    const keys = this.options.hasher.filterKeys(query.filters);
    const keyClause = keys.length === 0 ? '' : ' AND e.keys @> $4::text[]';
    return this.guard('count', async () => {
      if (spans.length === 1) {
        const [span] = spans;
        if (span === undefined) return [];
        const params: unknown[] = [query.action, bound(span.from), bound(span.to)];
        if (keys.length > 0) params.push(keys);
        const result = await this.db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pdp.history_events e
            WHERE e.action = $1 AND e.occurred_at >= $2 AND e.occurred_at < $3${keyClause}`,
          params,
        );
        return [onlyRow(result, 'count the events').n];
      }
      // All windows of one element in one statement (continuousOccurrence may ask for thousands).
      const params: unknown[] = [query.action, spans.map((span) => bound(span.from)), spans.map((span) => bound(span.to))];
      if (keys.length > 0) params.push(keys);
      const result = await this.db.query<{ n: number }>(
        `SELECT count(e.id)::int AS n
           FROM unnest($2::bigint[], $3::bigint[]) WITH ORDINALITY AS w(f, t, i)
           LEFT JOIN pdp.history_events e ON e.action = $1 AND e.occurred_at >= w.f AND e.occurred_at < w.t${keyClause}
          GROUP BY w.i ORDER BY w.i`,
        params,
      );
      return result.rows.map((row) => row.n);
    });
  }

  async occurrence(query: HistoryQuery, which: 'first' | 'last', before: number): Promise<number | null> {
    const keys = this.options.hasher.filterKeys(query.filters);
    const params: unknown[] = [query.action, bound(before)];
    if (keys.length > 0) params.push(keys);
    return this.guard('occurrence', async () => {
      const result = await this.db.query<{ at: string }>(
        `SELECT e.occurred_at AS at FROM pdp.history_events e
          WHERE e.action = $1 AND e.occurred_at < $2${keys.length === 0 ? '' : ' AND e.keys @> $3::text[]'}
          ORDER BY e.occurred_at ${which === 'first' ? 'ASC' : 'DESC'} LIMIT 1`,
        params,
      );
      const row = result.rows[0];
      return row === undefined ? null : Number(row.at);
    });
  }

  /**
   * State is kept per deployment of the policy (`deployed_at`, Deployments): a row written under another deployment
   * reads as absent, and the upsert replaces a row of an older deployment. A row of a newer deployment (this replica
   * still decides with a set from before the policy was revoked and deployed again) is left alone, and the answer is
   * then "unchanged": the lagging replica neither clobbers the new deployment's state nor counts a change twice.
   */
  async valueChanged(request: ValueChangedRequest): Promise<boolean> {
    const hash = this.options.hasher.value(request.value);
    const deployment = deploymentOf(this.deployments, request.policyId);
    return this.guard('valueChanged', async () => {
      if (!request.store) {
        const stored = await this.db.query<{ value_hash: string }>(
          'SELECT value_hash FROM pdp.value_changed WHERE policy_id = $1 AND block_id = $2 AND deployed_at = $3',
          [request.policyId, request.id, deployment],
        );
        return stored.rows[0]?.value_hash !== hash;
      }
      // Compare and store in one statement: the row lock of the upsert orders concurrent evaluations, and the WHERE
      // is checked against the latest row, so of two evaluations with the same new value only one sees a change.
      const result = await this.db.query(
        `INSERT INTO pdp.value_changed (policy_id, block_id, value_hash, revision, deployed_at) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (policy_id, block_id) DO UPDATE
           SET value_hash = EXCLUDED.value_hash, revision = EXCLUDED.revision, deployed_at = EXCLUDED.deployed_at, updated_at = now()
           WHERE pdp.value_changed.deployed_at < EXCLUDED.deployed_at
              OR (pdp.value_changed.deployed_at = EXCLUDED.deployed_at AND pdp.value_changed.value_hash <> EXCLUDED.value_hash)
         RETURNING 1`,
        [request.policyId, request.id, hash, Math.max(this.revision, 0), deployment],
      );
      return result.rowCount === 1;
    });
  }

  private async guard<T>(op: string, work: () => Promise<T>): Promise<T> {
    let run = work;
    if (this.serial) {
      const queued = this.tail.then(work, work);
      this.tail = queued.catch(() => undefined);
      run = () => queued;
    }
    try {
      return await run();
    } catch (error) {
      this.failed = true;
      this.options.metrics?.failures(op);
      this.options.logger.warn({ err: error, op }, 'event history query failed; the mechanism fails closed');
      throw error;
    }
  }
}

/**
 * The transaction of one recording decision. The engine's questions run on its client, in order; `commit` ends it.
 * A statement that failed aborts the transaction: `commit` then reports the record as lost.
 */
export class RecordingSession implements EventHistory {
  /** The occurrence time the event was recorded at: the decision's "now". */
  occurredAt = 0;
  private readonly queries: HistoryQueries;
  private done = false;

  constructor(
    private readonly client: PoolClient,
    private readonly options: HistoryStoreOptions,
    revision: number,
    deployments: Deployments = NO_DEPLOYMENTS,
  ) {
    this.queries = new HistoryQueries(client, options, revision, deployments, true);
  }

  count(query: HistoryQuery, spans: readonly TimeSpan[]): Promise<readonly number[]> {
    return this.queries.count(query, spans);
  }

  occurrence(query: HistoryQuery, which: 'first' | 'last', before: number): Promise<number | null> {
    return this.queries.occurrence(query, which, before);
  }

  valueChanged(request: ValueChangedRequest): Promise<boolean> {
    return this.queries.valueChanged(request);
  }

  /** true when the record (and any valueChanged state) is committed; false when the transaction was lost. */
  async commit(): Promise<boolean> {
    if (this.done) return false;
    this.done = true;
    if (this.queries.failed) {
      await this.finish('ROLLBACK');
      return false;
    }
    try {
      const result = await this.client.query('COMMIT');
      this.client.release();
      // COMMIT of an aborted transaction answers ROLLBACK without an error.
      return result.command === 'COMMIT';
    } catch (error) {
      this.options.metrics?.failures('commit');
      this.options.logger.warn({ err: error }, 'event history commit failed');
      this.client.release(error instanceof Error ? error : new Error(String(error)));
      return false;
    }
  }

  async rollback(reason?: unknown): Promise<void> {
    if (this.done) return;
    this.done = true;
    await this.finish('ROLLBACK', reason);
  }

  private async finish(statement: string, reason?: unknown): Promise<void> {
    try {
      await this.client.query(statement);
      this.client.release(reason instanceof Error && isConnectionError(reason) ? reason : undefined);
    } catch (error) {
      this.client.release(error instanceof Error ? error : new Error(String(error)));
    }
  }
}
