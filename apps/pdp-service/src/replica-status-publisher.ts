import type { NatsConnection } from 'nats';
import { REPLICA_STATUS_INTERVAL_MS, replicaStatusSubject, type ReplicaStatusReport } from '@custos/contracts';
import type { Logger } from '@custos/service-kit';

/** What the publisher reads of the replica each time it looks (the fields of GET /status it reports). */
export type ReplicaStatusSource = () => Omit<ReplicaStatusReport, 'sentAt'>;

export interface ReplicaStatusPublisherOptions {
  nc: Pick<NatsConnection, 'publish' | 'isClosed'>;
  prefix: string;
  status: ReplicaStatusSource;
  logger: Logger;
  /** How often the replica's state is looked at; a change of revision or readiness is reported by the next look. */
  checkMs?: number;
  /** Longest time between two reports. */
  intervalMs?: number;
}

/**
 * Tells pap where this replica stands: a report on `<prefix>.pdp.status` at least every REPLICA_STATUS_INTERVAL_MS,
 * and within `checkMs` of a new revision, so pap can say when a deploy has reached every replica. Reports carry no
 * policy content. A failed publish is logged and the next look tries again.
 */
export class ReplicaStatusPublisher {
  private timer: NodeJS.Timeout | undefined;
  private lastKey = '';
  private lastSentAt = 0;
  private readonly subject: string;

  constructor(private readonly options: ReplicaStatusPublisherOptions) {
    this.subject = replicaStatusSubject(options.prefix);
  }

  start(): this {
    this.look();
    this.timer = setInterval(() => this.look(), this.options.checkMs ?? 200);
    this.timer.unref();
    return this;
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private look(): void {
    if (this.options.nc.isClosed()) return;
    const status = this.options.status();
    const key = `${status.ready}:${status.revision}:${status.natsConnected}`;
    const now = Date.now();
    if (key === this.lastKey && now - this.lastSentAt < (this.options.intervalMs ?? REPLICA_STATUS_INTERVAL_MS)) return;
    const report: ReplicaStatusReport = {
      replica: status.replica,
      ready: status.ready,
      revision: status.revision,
      lagMs: status.lagMs,
      pendingChanges: status.pendingChanges,
      natsConnected: status.natsConnected,
      sentAt: new Date(now).toISOString(),
    };
    try {
      this.options.nc.publish(this.subject, JSON.stringify(report));
      this.lastKey = key;
      this.lastSentAt = now;
    } catch (error) {
      this.options.logger.warn({ err: error }, 'replica status not published');
    }
  }
}
