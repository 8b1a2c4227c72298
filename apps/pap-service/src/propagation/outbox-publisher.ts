import type { Pool, PoolClient } from 'pg';
import type { NatsConnection } from 'nats';
import { encodeChange, PAYLOAD_HEADROOM_BYTES, policySubjects, type PolicyChange } from '@custos/contracts';
import { backoffDelay, Counter, type Logger, type Registry } from '@custos/service-kit';
import { toNumber } from '../store/db';
import type { NatsLink } from './nats-link';
import { DEFAULT_STREAM_SETTINGS, ensurePolicyStream, type StreamSettings } from './stream';

/** Advisory lock key held by the one pap instance that publishes (any number is fine; this one spells "pap"). */
export const OUTBOX_LOCK_KEY = '7364976';

/** Consecutive looks after finding the lock taken; then the safety-net poll takes over. */
const MAX_BUSY_RETRIES = 20;

export interface OutboxPublisherOptions {
  pool: Pool;
  link: Pick<NatsLink, 'connection' | 'onConnected'>;
  prefix: string;
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
  /** Largest message published as is; larger changes go out as `resync`. Default: max_payload − 4096. */
  maxMessageBytes?: number;
  ackTimeoutMs?: number;
  stream?: StreamSettings;
}

export type PumpOutcome =
  | { kind: 'idle' }
  | { kind: 'published'; count: number }
  /** No usable NATS connection: rows stay in the outbox. */
  | { kind: 'offline' }
  /** Another pap instance holds the publisher lock. */
  | { kind: 'busy' }
  | { kind: 'failed'; count: number; error: unknown };

interface OutboxRow {
  revision: string;
  message: PolicyChange;
}

/**
 * Publishes the outbox to JetStream in revision order, each row with msgID `<prefix>:<revision>`
 * (the stream drops repeats inside its duplicate window), marking a row published only once
 * JetStream acknowledged it. A failure stops at that row and retries with backoff, so a change is
 * never lost or overtaken while NATS is down or pap restarts. Only the holder of a session
 * advisory lock publishes, so several pap instances never interleave. The lock is held for one pass only: a pap
 * that dies mid-pass loses it with its connection, and whichever pap passes next (after a commit, a busy retry or
 * the safety-net poll) publishes from the first unpublished row; a repeat of a row the dead one had sent is
 * dropped by the stream's duplicate window (same msgID).
 *
 * Why a JetStream stream and not a core publish: its acknowledgement is this publisher's delivery confirmation
 * (stored by the server, not merely written to a socket), and the pdps read it back: a replica that missed changes
 * on its core subscription replays them from the stream before it asks for a snapshot, so it catches up even while
 * pap is down (pdp-service policy-set/stream-replay.ts). The pdps still hear changes on a core subscription of the
 * same subject: no consumer stands between a commit and a decision.
 */
export class OutboxPublisher {
  private readonly subjects;
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
  private streamReadyFor: NatsConnection | undefined;
  private readonly published: Counter | undefined;
  private readonly failures: Counter | undefined;

  constructor(private readonly options: OutboxPublisherOptions) {
    this.subjects = policySubjects(options.prefix);
    this.batchSize = options.batchSize ?? 100;
    this.keepPublished = options.keepPublished ?? 1000;
    if (options.registry) {
      this.published = new Counter({
        name: 'pap_outbox_published_total',
        help: 'Outbox rows acknowledged by JetStream',
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
    this.options.link.onConnected(() => this.wake());
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
        const delay = backoffDelay({ initialMs: this.options.initialBackoffMs ?? 100, maxMs: this.options.maxBackoffMs ?? 2000 }, this.failedPasses);
        this.retryTimer = setTimeout(() => {
          this.retryTimer = undefined;
          this.wake();
        }, delay);
        return;
      }
      this.failedPasses = 0;
      if (outcome.kind === 'busy') {
        // The other pap may have read the outbox just before this pap's change committed, and released the lock
        // without it: look again shortly rather than at the next safety-net poll.
        if (this.busyRetries < MAX_BUSY_RETRIES) {
          this.busyRetries++;
          this.retryTimer = setTimeout(() => {
            this.retryTimer = undefined;
            this.wake();
          }, this.options.busyRetryMs ?? 50);
        }
        return;
      }
      this.busyRetries = 0;
    }
  }

  /** One publishing pass over every unpublished row; exposed for tests and for a final flush. */
  async pump(): Promise<PumpOutcome> {
    const nc = this.options.link.connection();
    if (!nc) return { kind: 'offline' };
    let client: PoolClient;
    try {
      client = await this.options.pool.connect();
    } catch (error) {
      return this.failed(error, 0);
    }
    let broken: Error | undefined;
    let locked = false;
    let count = 0;
    try {
      const lock = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1::bigint) AS locked', [
        OUTBOX_LOCK_KEY,
      ]);
      locked = lock.rows[0]?.locked === true;
      if (!locked) return { kind: 'busy' };
      if (this.streamReadyFor !== nc) {
        await ensurePolicyStream(nc, this.options.prefix, this.options.stream ?? DEFAULT_STREAM_SETTINGS);
        this.streamReadyFor = nc;
      }
      let lastRevision = 0;
      for (;;) {
        const rows = await client.query<OutboxRow>(
          'SELECT revision, message FROM pap.outbox WHERE published_at IS NULL ORDER BY revision LIMIT $1',
          [this.batchSize],
        );
        for (const row of rows.rows) {
          const revision = toNumber(row.revision);
          await this.publish(nc, revision, row.message);
          // Autocommit: the row counts as delivered the moment JetStream has it.
          await client.query('UPDATE pap.outbox SET published_at = now() WHERE revision = $1', [revision]);
          this.published?.inc();
          lastRevision = revision;
          count++;
        }
        if (rows.rows.length < this.batchSize) break;
      }
      if (count > 0) {
        await client.query('DELETE FROM pap.outbox WHERE revision <= $1 AND published_at IS NOT NULL', [
          lastRevision - this.keepPublished,
        ]);
      }
      if (this.failing) {
        this.failing = false;
        this.options.logger.info({ published: count }, 'outbox publishing resumed');
      }
      return count > 0 ? { kind: 'published', count } : { kind: 'idle' };
    } catch (error) {
      this.streamReadyFor = undefined;
      // Whatever failed, do not hand a connection in an unknown state back to the pool.
      broken = error instanceof Error ? error : new Error(String(error));
      return this.failed(error, count);
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

  private async publish(nc: NatsConnection, revision: number, message: PolicyChange): Promise<void> {
    const limit = this.options.maxMessageBytes ?? (nc.info?.max_payload ?? 1024 * 1024) - PAYLOAD_HEADROOM_BYTES;
    const { data, resync, bytes } = encodeChange(message, limit);
    if (resync) this.options.logger.warn({ revision, bytes, limit }, 'change too large for one message; sending resync');
    const js = nc.jetstream({ timeout: this.options.ackTimeoutMs ?? 5000 });
    await js.publish(this.subjects.changes, data, {
      msgID: `${this.options.prefix}:${revision}`,
      expect: { streamName: this.subjects.stream },
    });
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
