import type { PoolClient, QueryResult } from 'pg';
import type { Logger } from '@custos/service-kit';
import * as sql from './batch-sql';
import type { HistoryStoreMetrics } from './store';

interface Pending {
  readonly statement: string;
  readonly op: string;
  readonly resolve: (result: QueryResult) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * The one transaction of a batch, on one connection, under the lock of the batch's action. Reads asked in the same
 * turn of the event loop (the members of a batch are evaluated side by side) go to PostgreSQL together, in one
 * round trip, and each distinct read is made once per batch: under the lock no other writer can change the action's
 * events, so the answer holds for the whole batch.
 */
export class BatchTransaction {
  /** True once a statement failed: the transaction is aborted and nothing of the batch can be committed. */
  failed = false;
  private pending: Pending[] = [];
  private scheduled = false;
  private readonly reads = new Map<string, Promise<QueryResult>>();
  private released = false;

  constructor(
    private readonly client: PoolClient,
    private readonly logger: Logger,
    private readonly metrics: HistoryStoreMetrics | undefined,
  ) {}

  /** BEGIN, the action's lock, and the occurrence time of its last recorded event (null when none). */
  async open(lockKey: string, action: string, synchronousCommit: boolean): Promise<number | null> {
    const results = await this.client.query(sql.openStatements(lockKey, action, synchronousCommit));
    const last = lastResult(results).rows[0] as { at: string } | undefined;
    return last === undefined ? null : Number(last.at);
  }

  count(action: string, keys: readonly string[], spans: ReadonlyArray<{ from: number; to: number }>): Promise<number[]> {
    return this.read('count', sql.countStatement(action, keys, spans)).then((result) => result.rows.map((row: { n: number }) => row.n));
  }

  occurrence(action: string, keys: readonly string[], which: 'first' | 'last', before: number): Promise<number | null> {
    return this.read('occurrence', sql.occurrenceStatement(action, keys, which, before)).then((result) => {
      const row = result.rows[0] as { at: string } | undefined;
      return row === undefined ? null : Number(row.at);
    });
  }

  /** The stored valueChanged hash, its row locked until commit; null when nothing is stored. */
  storedValue(policyId: string, blockId: string): Promise<string | null> {
    return this.read('valueChanged', sql.storedValueStatement(policyId, blockId)).then(
      (result) => (result.rows[0] as { value_hash: string } | undefined)?.value_hash ?? null,
    );
  }

  /** Writes the events and valueChanged state, then commits; true when committed. Never throws. */
  async commit(events: readonly sql.EventRow[], values: readonly sql.ValueRow[]): Promise<boolean> {
    if (this.failed) {
      await this.rollback();
      return false;
    }
    try {
      const result = lastResult(await this.client.query(sql.commitStatements(events, values)));
      this.release();
      // COMMIT of an aborted transaction answers ROLLBACK without an error.
      return result.command === 'COMMIT';
    } catch (error) {
      this.metrics?.failures('commit');
      this.logger.warn({ err: error }, 'event history batch commit failed');
      this.failed = true;
      await this.rollback(error);
      return false;
    }
  }

  /** Ends the transaction without writing; the connection goes back to the pool unless it broke. Never throws. */
  async rollback(reason?: unknown): Promise<void> {
    if (this.released) return;
    try {
      await this.client.query('ROLLBACK');
      this.release(reason instanceof Error && isConnectionError(reason) ? reason : undefined);
    } catch (error) {
      this.release(error instanceof Error ? error : new Error(String(error)));
    }
  }

  private release(error?: Error): void {
    if (this.released) return;
    this.released = true;
    this.client.release(error);
  }

  private read(op: string, statement: string): Promise<QueryResult> {
    let answer = this.reads.get(statement);
    if (answer === undefined) {
      answer = new Promise<QueryResult>((resolve, reject) => this.pending.push({ statement, op, resolve, reject }));
      this.reads.set(statement, answer);
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => void this.flush());
      }
    }
    return answer;
  }

  private async flush(): Promise<void> {
    this.scheduled = false;
    const batch = this.pending;
    this.pending = [];
    if (batch.length === 0) return;
    try {
      const results = await this.client.query(batch.map((entry) => entry.statement).join('; '));
      const list = Array.isArray(results) ? (results as QueryResult[]) : [results];
      batch.forEach((entry, index) => {
        const result = list[index];
        if (result === undefined) entry.reject(new Error('the event history answered fewer results than statements'));
        else entry.resolve(result);
      });
    } catch (error) {
      this.failed = true;
      for (const op of new Set(batch.map((entry) => entry.op))) this.metrics?.failures(op);
      this.logger.warn({ err: error }, 'event history query failed; the batch fails closed');
      for (const entry of batch) entry.reject(error);
    }
  }
}

function lastResult(results: QueryResult | QueryResult[]): QueryResult {
  const list = Array.isArray(results) ? results : [results];
  const last = list[list.length - 1];
  if (last === undefined) throw new Error('the event history answered no result');
  return last;
}

/** Errors after which a connection must not go back to the pool. */
export function isConnectionError(error: Error): boolean {
  const code = (error as { code?: string }).code;
  return code === undefined || code.startsWith('08') || code === '57P01';
}
