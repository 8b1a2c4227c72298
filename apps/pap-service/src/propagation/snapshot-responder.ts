import type { Pool } from 'pg';
import type { Msg, NatsConnection } from 'nats';
import { policySubjects, type SnapshotRequest } from '@custos/contracts';
import type { Logger } from '@custos/service-kit';
import { LinkSubscription } from './link-subscription';
import type { NatsLink } from './nats-link';
import { answerSnapshotRequest, snapshotRequestOf } from './snapshot-answer';
import { SnapshotCache } from './snapshot-cache';

export interface SnapshotResponderOptions {
  pool: Pool;
  link: Pick<NatsLink, 'onConnected'>;
  prefix: string;
  logger: Logger;
  /** Largest message sent (tests, to see parts and pieces with a few documents). Default: the server's max_payload. */
  maxPayload?: number;
  /** Queue group, so one pap instance answers each request. */
  queue?: string;
}

/**
 * Answers snapshot requests on `<prefix>.policy.snapshot` (queue group `pap`): the deployed set at
 * one revision, as SnapshotPart (and SnapshotPiece) messages sent in order to the request's reply inbox.
 * Failures are logged; a requester that gets no `last` part simply asks again.
 */
export class SnapshotResponder {
  private readonly subscription: LinkSubscription;
  private readonly inflight = new Set<Promise<void>>();
  /** The whole set's answer at the newest revision read: a starting replica gets it at once. */
  private readonly cache = new SnapshotCache();

  constructor(private readonly options: SnapshotResponderOptions) {
    this.subscription = new LinkSubscription({
      link: options.link,
      subject: policySubjects(options.prefix).snapshot,
      queue: options.queue ?? 'pap',
      logger: options.logger,
      what: 'snapshot',
      onMessage: (msg, nc) => this.receive(nc, msg),
    });
  }

  start(): this {
    this.subscription.start();
    return this;
  }

  async stop(): Promise<void> {
    this.subscription.stop();
    await Promise.allSettled([...this.inflight]);
  }

  /** Resolves once the server has seen every subscription made so far. */
  async flush(): Promise<void> {
    await this.subscription.flush();
  }

  /** The largest message sent on this connection. */
  maxPayloadFor(nc: NatsConnection): number {
    return this.options.maxPayload ?? nc.info?.max_payload ?? 1024 * 1024;
  }

  /** Answers one request; `stop` waits for the answers under way. */
  private receive(nc: NatsConnection, msg: Msg): void {
    const task = this.answer(nc, msg).catch((failure: unknown) => this.options.logger.error({ err: failure }, 'snapshot request failed'));
    this.inflight.add(task);
    void task.finally(() => this.inflight.delete(task));
  }

  private async answer(nc: NatsConnection, msg: Msg): Promise<void> {
    if (!msg.reply) {
      this.options.logger.warn('snapshot request without a reply subject ignored');
      return;
    }
    const { pool, logger } = this.options;
    const messages = await answerSnapshotRequest(requestOf(msg), { pool, logger, maxPayload: this.maxPayloadFor(nc), cache: this.cache });
    for (const message of messages) nc.publish(msg.reply, message);
  }
}

function requestOf(msg: Msg): Partial<SnapshotRequest> | undefined {
  try {
    return snapshotRequestOf(msg.json<unknown>());
  } catch {
    return undefined;
  }
}
