import type { Pool } from 'pg';
import type { Logger } from '@custos/service-kit';
import { DURABLE_STATEMENTS } from './batch-sql';
import type { HistoryStoreMetrics } from './store';

/**
 * Waits for the disk on behalf of every batch of a replica: one synchronous flush (DURABLE_STATEMENTS) covers every
 * batch committed before it started, so batches that commit while a flush runs share the next one instead of each
 * paying its own.
 */
export class DurabilityWaiter {
  private flushing = false;
  /** Callers whose commit came before no running flush started: they need the next one. */
  private waiting: Array<(durable: boolean) => void> = [];

  constructor(
    private readonly pool: Pool,
    private readonly logger: Logger,
    private readonly metrics: HistoryStoreMetrics | undefined,
  ) {}

  /** Resolves true once everything committed before the call is on disk; false when that could not be confirmed. */
  afterCommit(): Promise<boolean> {
    const durable = new Promise<boolean>((resolve) => this.waiting.push(resolve));
    if (!this.flushing) void this.flushAll();
    return durable;
  }

  private async flushAll(): Promise<void> {
    this.flushing = true;
    while (this.waiting.length > 0) {
      const served = this.waiting;
      this.waiting = [];
      const started = performance.now();
      const durable = await this.flush();
      this.logger.debug({ batches: served.length, ms: Math.round((performance.now() - started) * 100) / 100 }, 'recorded events on disk');
      for (const resolve of served) resolve(durable);
    }
    this.flushing = false;
  }

  private async flush(): Promise<boolean> {
    try {
      await this.pool.query(DURABLE_STATEMENTS);
      return true;
    } catch (error) {
      this.metrics?.failures('commit');
      this.logger.warn({ err: error }, 'event history could not confirm recorded events on disk');
      return false;
    }
  }
}
