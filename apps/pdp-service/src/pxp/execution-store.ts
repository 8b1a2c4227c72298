import type { Pool } from 'pg';

export type ExecutionState = 'pending' | 'done' | 'refused' | 'failed';
export const EXECUTION_STATES: readonly ExecutionState[] = ['pending', 'done', 'refused', 'failed'];

/** One execute as stored: what to send (`parameters` in wire form, api.md §6) and where it stands. */
export interface StoredExecution {
  id: string;
  decisionId: string;
  timerId: string | null;
  policyId: string;
  action: string;
  solution: string;
  parameters: unknown;
  state: ExecutionState;
  attempts: number;
  maxAttempts: number;
  nextAttemptAt: number;
  lastError: string | null;
  createdAt: number;
  updatedAt: number;
}

export type NewExecution = Pick<StoredExecution, 'id' | 'decisionId' | 'timerId' | 'policyId' | 'action' | 'solution' | 'parameters'>;

interface Row {
  id: string;
  decision_id: string;
  timer_id: string | null;
  policy_id: string;
  action: string;
  solution: string;
  parameters: unknown;
  state: ExecutionState;
  attempts: number;
  max_attempts: number;
  next_attempt_at: string;
  last_error: string | null;
  created_at: string;
  updated_at: string;
}

const COLUMNS =
  'id, decision_id, timer_id, policy_id, action, solution, parameters, state, attempts, max_attempts, next_attempt_at, last_error, created_at, updated_at';

const fromRow = (row: Row): StoredExecution => ({
  id: row.id,
  decisionId: row.decision_id,
  timerId: row.timer_id,
  policyId: row.policy_id,
  action: row.action,
  solution: row.solution,
  parameters: row.parameters,
  state: row.state,
  attempts: row.attempts,
  maxAttempts: row.max_attempts,
  nextAttemptAt: Number(row.next_attempt_at),
  lastError: row.last_error,
  createdAt: Number(row.created_at),
  updatedAt: Number(row.updated_at),
});

/** Errors are stored for operators; a PXP's answer text never is (CallError messages hold no values). */
const MAX_ERROR_LENGTH = 500;

/**
 * `pdp.executions`: the durable queue of asynchronous executes. Rows are claimed with a lease (`claimed_until`, ms):
 * a pending row belongs to the replica that claimed it until the lease ends, then to whichever replica claims it
 * next (`FOR UPDATE SKIP LOCKED`, so concurrent claimers never wait for each other nor take the same row).
 */
export class PgExecutionStore {
  constructor(
    private readonly pool: Pool,
    private readonly replicaId: string,
  ) {}

  /** Writes the executes of one decision in one statement, already claimed by this replica for `leaseMs`. */
  async insert(executions: readonly NewExecution[], maxAttempts: number, now: number, leaseMs: number): Promise<void> {
    if (executions.length === 0) return;
    await this.pool.query(
      `INSERT INTO pdp.executions (id, decision_id, timer_id, policy_id, action, solution, parameters, max_attempts,
         next_attempt_at, claimed_by, claimed_until, created_at, updated_at)
       SELECT e.id, e.decision_id, e.timer_id, e.policy_id, e.action, e.solution, e.parameters, $2, $3, $4, $5, $3, $3
         FROM jsonb_to_recordset($1::jsonb) AS e(id uuid, decision_id text, timer_id text, policy_id text, action text,
           solution text, parameters jsonb)`,
      [
        JSON.stringify(
          executions.map((e) => ({
            id: e.id,
            decision_id: e.decisionId,
            timer_id: e.timerId,
            policy_id: e.policyId,
            action: e.action,
            solution: e.solution,
            parameters: e.parameters,
          })),
        ),
        maxAttempts,
        now,
        this.replicaId,
        now + leaseMs,
      ],
    );
  }

  /** Claims up to `limit` pending executes that are due and not claimed by a live lease. */
  async claimDue(limit: number, now: number, leaseMs: number): Promise<StoredExecution[]> {
    const result = await this.pool.query<Row>(
      `UPDATE pdp.executions SET claimed_by = $1, claimed_until = $2 + $3::bigint, updated_at = $2
        WHERE id IN (SELECT id FROM pdp.executions
                      WHERE state = 'pending' AND next_attempt_at <= $2 AND claimed_until <= $2
                      ORDER BY next_attempt_at LIMIT $4 FOR UPDATE SKIP LOCKED)
          AND state = 'pending'
        RETURNING ${COLUMNS}`,
      [this.replicaId, now, leaseMs, limit],
    );
    return result.rows.map(fromRow);
  }

  /** Records an attempt that failed and will be retried at `retryAt` by this replica; the claim covers the wait. */
  async postpone(id: string, attempts: number, retryAt: number, leaseUntil: number, error: string, now: number): Promise<void> {
    await this.pool.query(
      `UPDATE pdp.executions SET attempts = $2, next_attempt_at = $3, claimed_until = $4, last_error = $5, updated_at = $6
        WHERE id = $1 AND state = 'pending'`,
      [id, attempts, retryAt, leaseUntil, error.slice(0, MAX_ERROR_LENGTH), now],
    );
  }

  /** Ends an execute: done, refused or failed. */
  async finish(id: string, state: Exclude<ExecutionState, 'pending'>, attempts: number, error: string | null, now: number): Promise<void> {
    await this.pool.query(
      `UPDATE pdp.executions SET state = $2, attempts = $3, last_error = $4, claimed_until = 0, updated_at = $5
        WHERE id = $1 AND state = 'pending'`,
      [id, state, attempts, error?.slice(0, MAX_ERROR_LENGTH) ?? null, now],
    );
  }

  /** Gives claimed executes back at once (shutdown), so another replica need not wait for the lease. */
  async release(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.pool.query(`UPDATE pdp.executions SET claimed_until = 0 WHERE id = ANY($1::uuid[]) AND claimed_by = $2`, [
      ids,
      this.replicaId,
    ]);
  }

  /** Executes in `state` of the given solutions (undefined = every solution), oldest first. */
  async list(state: ExecutionState, solutions: readonly string[] | undefined, limit: number): Promise<StoredExecution[]> {
    const result = await this.pool.query<Row>(
      `SELECT ${COLUMNS} FROM pdp.executions
        WHERE state = $1 AND ($2::text[] IS NULL OR solution = ANY($2::text[]))
        ORDER BY created_at, id LIMIT $3`,
      [state, solutions ?? null, limit],
    );
    return result.rows.map(fromRow);
  }

  async get(id: string): Promise<StoredExecution | undefined> {
    const result = await this.pool.query<Row>(`SELECT ${COLUMNS} FROM pdp.executions WHERE id = $1`, [id]);
    const row = result.rows[0];
    return row === undefined ? undefined : fromRow(row);
  }

  /** Makes a failed or refused execute pending again with fresh attempts; undefined when it is in another state. */
  async retry(id: string, now: number): Promise<StoredExecution | undefined> {
    const result = await this.pool.query<Row>(
      `UPDATE pdp.executions SET state = 'pending', attempts = 0, next_attempt_at = $2, claimed_until = 0, updated_at = $2
        WHERE id = $1 AND state IN ('failed', 'refused')
        RETURNING ${COLUMNS}`,
      [id, now],
    );
    const row = result.rows[0];
    return row === undefined ? undefined : fromRow(row);
  }

  /** How many executes are pending and failed (the metric). */
  async counts(): Promise<{ pending: number; failed: number }> {
    const result = await this.pool.query<{ state: ExecutionState; n: string }>(
      `SELECT state, count(*) AS n FROM pdp.executions WHERE state IN ('pending', 'failed') GROUP BY state`,
    );
    const of = (state: ExecutionState) => Number(result.rows.find((row) => row.state === state)?.n ?? 0);
    return { pending: of('pending'), failed: of('failed') };
  }

  /** Deletes done and refused executes older than `before` (ms); failed ones stay until retried. */
  async prune(before: number): Promise<number> {
    const result = await this.pool.query(`DELETE FROM pdp.executions WHERE state IN ('done', 'refused') AND updated_at < $1`, [before]);
    return result.rowCount ?? 0;
  }
}
