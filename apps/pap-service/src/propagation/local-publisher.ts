import type { Pool } from 'pg';
import { encodeChange, type LocalPolicyChannel, type PolicyChange } from '@custos/contracts';
import { Counter, type Logger, type Registry } from '@custos/service-kit';
import { toNumber } from '../store/db';

export interface LocalPublisherOptions {
  pool: Pool;
  channel: LocalPolicyChannel;
  logger: Logger;
  registry?: Registry;
  /** Safety-net poll (default 1000 ms); commits wake it at once. */
  intervalMs?: number;
  batchSize?: number;
  /** Published rows kept for inspection; older ones are pruned (default 1000). */
  keepPublished?: number;
}

interface OutboxRow {
  revision: string;
  message: PolicyChange;
}

/** No NATS payload limit in process: a change always goes out whole. */
const NO_LIMIT = Number.MAX_SAFE_INTEGER;

/**
 * The outbox publisher of embedded mode: the same outbox rows, in revision order, marked published once handed to
 * the in-process channel. One pap runs in that process, so no publisher lock is taken, and each statement takes
 * the pool's connection only for itself, since embedded PostgreSQL serves one session for every service.
 */
export class LocalOutboxPublisher {
  private interval: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private requested = false;
  private stopped = false;
  private readonly published: Counter | undefined;

  constructor(private readonly options: LocalPublisherOptions) {
    if (options.registry) {
      this.published = new Counter({
        name: 'pap_outbox_published_total',
        help: 'Outbox rows handed to the in-process channel',
        registers: [options.registry],
      });
    }
  }

  start(): this {
    this.interval = setInterval(() => this.wake(), this.options.intervalMs ?? 1000);
    this.wake();
    return this;
  }

  /** Publishes soon (after a commit); calls during a run fold into it. */
  wake(): void {
    if (this.stopped) return;
    this.requested = true;
    if (this.running) return;
    this.running = this.loop().finally(() => {
      this.running = undefined;
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.interval);
    await this.running;
  }

  private async loop(): Promise<void> {
    while (this.requested && !this.stopped) {
      this.requested = false;
      try {
        await this.pump();
      } catch (error) {
        // The rows stay unpublished; the next wake or tick tries again.
        this.options.logger.warn({ err: error }, 'outbox publishing failed; retrying');
        return;
      }
    }
  }

  /** Hands every unpublished row to the channel, oldest first; returns how many. */
  async pump(): Promise<number> {
    const { pool, channel } = this.options;
    const batchSize = this.options.batchSize ?? 100;
    let count = 0;
    let lastRevision = 0;
    for (;;) {
      const rows = await pool.query<OutboxRow>(
        'SELECT revision, message FROM pap.outbox WHERE published_at IS NULL ORDER BY revision LIMIT $1',
        [batchSize],
      );
      for (const row of rows.rows) {
        const revision = toNumber(row.revision);
        channel.publishChange(encodeChange(row.message, NO_LIMIT).data);
        await pool.query('UPDATE pap.outbox SET published_at = now() WHERE revision = $1', [revision]);
        this.published?.inc();
        lastRevision = revision;
        count++;
      }
      if (rows.rows.length < batchSize) break;
    }
    if (count > 0) {
      await pool.query('DELETE FROM pap.outbox WHERE revision <= $1 AND published_at IS NOT NULL', [
        lastRevision - (this.options.keepPublished ?? 1000),
      ]);
    }
    return count;
  }
}
