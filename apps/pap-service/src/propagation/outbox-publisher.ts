import type { Pool, PoolClient } from 'pg';
import type { PolicyChange } from '@custos/contracts';
import { backoffDelay, Counter, type Logger, type Registry } from '@custos/service-kit';
import { toNumber, type Queryable } from '../store/db';
import { JetStreamSink, type JetStreamSinkOptions } from './jetstream-sink';
import type { OutboxSink } from './outbox-sink';

/** Advisory lock key held by the one pap instance that publishes (any number is fine; this one spells "pap"). */
export const OUTBOX_LOCK_KEY = '7364976';

/** Consecutive looks after finding the lock taken; then the safety-net poll takes over. */
const MAX_BUSY_RETRIES = 20;

interface PumpSettings {
  pool: Pool;
  logger: Logger;
  registry?: Registry;
  /** Safety-net poll, for changes committed by other pap instances (default 1000 ms). */
  intervalMs?: number;
  /** Retry delay after a failure, doubled per failure up to `maxBackoffMs` (defaults 100 / 2000 ms). */
  initialBackoffMs?: number;
  maxBackoffMs?: number;
  batchSize?: number;
  /** After finding another pap publishing, look again this soon (default 50 ms), at most 20 times in a row. */
  busyRetryMs?: number;
  /** Published rows kept for inspection; older ones are pruned (default 1000). */
  keepPublished?: number;
}

/** The pump's settings and where it delivers: a sink, or (the default) pap's JetStream stream on `link`. */
export type OutboxPublisherOptions = PumpSettings & ({ sink: OutboxSink } | JetStreamSinkOptions);

export type PumpOutcome =
  | { kind: 'idle' }
  | { kind: 'published'; count: number }
  /** The sink cannot take changes now (no NATS connection): rows stay in the outbox. */
  | { kind: 'offline' }
  /** Another pap instance holds the publisher lock. */
  | { kind: 'busy' }
  | { kind: 'failed'; count: number; error: unknown };

interface OutboxRow {
  revision: string;
  message: PolicyChange;
}

/**
 * The one outbox pump: delivers the outbox to its sink in revision order, marking a row published only once the sink
 * has it. A failure stops at that row and retries with backoff, so a change is never lost or overtaken while the sink
 * is unreachable or pap restarts.
 *
 * For a shared sink (JetStream) only the holder of a session advisory lock publishes, so several pap instances never
 * interleave. The lock is held for one pass only: a pap that dies mid-pass loses it with its connection, and whichever
 * pap passes next (after a commit, a busy retry or the safety-net poll) publishes from the first unpublished row; a
 * repeat of a row the dead one had sent is dropped by the stream's duplicate window (same msgID).
 */
export class OutboxPublisher {
  private readonly sink: OutboxSink;
  private readonly batchSize: number;
  private readonly keepPublished: number;
  private interval: NodeJS.Timeout | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private requested = false;
  private stopped = false;
  /** Failed passes in a row (drives the backoff). */
  private failedPasses = 0;
  private failing = false;
  private busyRetries = 0;
  private readonly published: Counter | undefined;
  private readonly failures: Counter | undefined;

  constructor(private readonly options: OutboxPublisherOptions) {
    this.sink = 'sink' in options ? options.sink : new JetStreamSink(options);
    this.batchSize = options.batchSize ?? 100;
    this.keepPublished = options.keepPublished ?? 1000;
    if (options.registry) {
      this.published = new Counter({
        name: 'pap_outbox_published_total',
        help: 'Outbox rows delivered (acknowledged by JetStream, or handed to the in-process channel)',
        registers: [options.registry],
      });
      this.failures = new Counter({
        name: 'pap_outbox_publish_failures_total',
        help: 'Failed attempts to publish the outbox',
        registers: [options.registry],
      });
    }
  }

  start(): this {
    this.interval = setInterval(() => this.wake(), this.options.intervalMs ?? 1000);
    this.sink.onReady(() => this.wake());
    this.wake();
    return this;
  }

  /** Publishes soon (after a commit); calls during a run or a backoff fold into it. */
  wake(): void {
    if (this.stopped) return;
    this.requested = true;
    if (this.running || this.retryTimer) return;
    this.running = this.loop().finally(() => {
      this.running = undefined;
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.interval);
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    await this.running;
  }

  private async loop(): Promise<void> {
    while (this.requested && !this.stopped) {
      this.requested = false;
      const outcome = await this.pump();
      if (outcome.kind === 'failed') {
        this.failedPasses++;
        this.retryIn(backoffDelay({ initialMs: this.options.initialBackoffMs ?? 100, maxMs: this.options.maxBackoffMs ?? 2000 }, this.failedPasses));
        return;
      }
      this.failedPasses = 0;
      if (outcome.kind === 'busy') {
        // The other pap may have read the outbox just before this pap's change committed, and released the lock
        // without it: look again shortly rather than at the next safety-net poll.
        if (this.busyRetries < MAX_BUSY_RETRIES) {
          this.busyRetries++;
          this.retryIn(this.options.busyRetryMs ?? 50);
        }
        return;
      }
      this.busyRetries = 0;
    }
  }

  private retryIn(ms: number): void {
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.wake();
    }, ms);
  }

  /** One publishing pass over every unpublished row; exposed for tests and for a final flush. */
  async pump(): Promise<PumpOutcome> {
    if (!this.sink.ready()) return { kind: 'offline' };
    if (!this.sink.shared) return this.pass(this.options.pool);
    let client: PoolClient;
    try {
      client = await this.options.pool.connect();
    } catch (error) {
      return this.failed(error, 0);
    }
    let broken: Error | undefined;
    let locked = false;
    try {
      const lock = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1::bigint) AS locked', [OUTBOX_LOCK_KEY]);
      locked = lock.rows[0]?.locked === true;
      if (!locked) return { kind: 'busy' };
      const outcome = await this.pass(client);
      // Whatever failed, do not hand a connection in an unknown state back to the pool.
      if (outcome.kind === 'failed') broken = outcome.error instanceof Error ? outcome.error : new Error(String(outcome.error));
      return outcome;
    } catch (error) {
      broken = error instanceof Error ? error : new Error(String(error));
      return this.failed(error, 0);
    } finally {
      if (locked && !broken) {
        try {
          await client.query('SELECT pg_advisory_unlock($1::bigint)', [OUTBOX_LOCK_KEY]);
        } catch (error) {
          broken = error as Error;
        }
      }
      // A destroyed connection releases its advisory lock as well.
      client.release(broken);
    }
  }

  /** Delivers the unpublished rows read through `db`, oldest first, then prunes what is long published. */
  private async pass(db: Queryable): Promise<PumpOutcome> {
    let count = 0;
    try {
      await this.sink.prepare();
      let lastRevision = 0;
      for (;;) {
        const rows = await db.query<OutboxRow>('SELECT revision, message FROM pap.outbox WHERE published_at IS NULL ORDER BY revision LIMIT $1', [
          this.batchSize,
        ]);
        for (const row of rows.rows) {
          const revision = toNumber(row.revision);
          await this.sink.deliver(revision, row.message);
          // Autocommit: the row counts as delivered the moment the sink has it.
          await db.query('UPDATE pap.outbox SET published_at = now() WHERE revision = $1', [revision]);
          this.published?.inc();
          lastRevision = revision;
          count++;
        }
        if (rows.rows.length < this.batchSize) break;
      }
      if (count > 0) {
        await db.query('DELETE FROM pap.outbox WHERE revision <= $1 AND published_at IS NOT NULL', [lastRevision - this.keepPublished]);
      }
      if (this.failing) {
        this.failing = false;
        this.options.logger.info({ published: count }, 'outbox publishing resumed');
      }
      return count > 0 ? { kind: 'published', count } : { kind: 'idle' };
    } catch (error) {
      this.sink.reset();
      return this.failed(error, count);
    }
  }

  private failed(error: unknown, count: number): PumpOutcome {
    this.failures?.inc();
    const log = { err: error, published: count };
    if (!this.failing) this.options.logger.warn(log, 'outbox publishing failed; retrying');
    else this.options.logger.debug(log, 'outbox publishing failed again');
    this.failing = true;
    return { kind: 'failed', count, error };
  }
}
