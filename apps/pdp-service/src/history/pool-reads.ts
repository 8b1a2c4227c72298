import type { Pool, QueryResult } from 'pg';
import { NO_TRACING, type Logger, type Tracing } from '@custos/service-kit';
import * as sql from './batch-sql';
import type { HistoryStoreMetrics } from './store';
import { historySpan, type AwaitingRoundTrip } from './trace';

/** A statement waiting for the next round trip (its span: the decision that asked first). */
interface Pending extends AwaitingRoundTrip<QueryResult> {
  readonly statement: string;
  readonly op: string;
}

/** Most statements sent in one round trip. */
const MAX_STATEMENTS = 200;

/**
 * Reads of recorded decisions on the pool. The decisions of a batch are evaluated side by side, so their reads
 * come in the same turn of the event loop: they are sent together, as one multi-statement query, and a statement
 * asked twice in that turn is sent once. A failed round trip fails every read in it (its mechanisms fail closed).
 */
export class PoolReads {
  private pending: Pending[] = [];
  private waiting = new Map<string, Promise<QueryResult>>();
  private scheduled = false;

  constructor(
    private readonly pool: Pool,
    private readonly logger: Logger,
    private readonly metrics: HistoryStoreMetrics | undefined,
    private readonly tracing: Tracing = NO_TRACING,
  ) {}

  count(scope: sql.ReadScope, spans: ReadonlyArray<{ from: number; to: number }>): Promise<number[]> {
    return this.read('count', sql.countStatement(scope, spans)).then((result) => result.rows.map((row: { n: number }) => row.n));
  }

  occurrence(scope: sql.ReadScope, which: 'first' | 'last', before: number): Promise<number | null> {
    return this.read('occurrence', sql.occurrenceStatement(scope, which, before)).then((result) => {
      const row = result.rows[0] as { at: string } | undefined;
      return row === undefined ? null : Number(row.at);
    });
  }

  private read(op: string, statement: string): Promise<QueryResult> {
    let answer = this.waiting.get(statement);
    if (answer === undefined) {
      const trace = this.tracing.enabled ? this.tracing.activeSpanContext() : undefined;
      answer = new Promise<QueryResult>((resolve, reject) => this.pending.push({ statement, op, resolve, reject, trace }));
      this.waiting.set(statement, answer);
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    }
    return answer;
  }

  private flush(): void {
    this.scheduled = false;
    const pending = this.pending;
    this.pending = [];
    this.waiting = new Map();
    for (let start = 0; start < pending.length; start += MAX_STATEMENTS) void this.send(pending.slice(start, start + MAX_STATEMENTS));
  }

  private async send(batch: Pending[]): Promise<void> {
    const started = performance.now();
    const span = this.tracing.enabled
      ? historySpan(this.tracing, 'custos.history.read', batch.map((entry) => entry.trace), { 'custos.history.statements': batch.length })
      : undefined;
    let failure: unknown;
    try {
      const results = (await this.pool.query(batch.map((entry) => entry.statement).join('; '))) as QueryResult | QueryResult[];
      this.metrics?.phase?.('read', (performance.now() - started) / 1000);
      const list = Array.isArray(results) ? results : [results];
      batch.forEach((entry, index) => {
        const result = list[index];
        if (result === undefined) entry.reject(new Error('the event history answered fewer results than statements'));
        else entry.resolve(result);
      });
    } catch (error) {
      for (const op of new Set(batch.map((entry) => entry.op))) this.metrics?.failures(op);
      this.logger.warn({ err: error }, 'event history query failed; the mechanism fails closed');
      for (const entry of batch) entry.reject(error);
      failure = error;
    }
    if (span !== undefined) this.tracing.end(span, failure);
  }
}
