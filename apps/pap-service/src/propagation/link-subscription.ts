import type { Msg, NatsConnection, Subscription } from 'nats';
import type { Logger } from '@custos/service-kit';
import type { NatsLink } from './nats-link';

export interface LinkSubscriptionOptions {
  link: Pick<NatsLink, 'onConnected'>;
  subject: string;
  /** Queue group: each message goes to one member of it (one pap of several). */
  queue?: string;
  logger: Logger;
  /** What is subscribed to, for the log: `<what> subscription error`. */
  what: string;
  /** Each message, with the connection it came on (where a reply goes). */
  onMessage: (msg: Msg, nc: NatsConnection) => void;
}

/**
 * One subject subscribed to on the link's connection, whichever it is: pap's link may connect late and make a new
 * connection after a closed one, so the subscription is made again on each new connection (nats.js itself keeps a
 * subscription across reconnects of the same connection). Used by the snapshot responder and the replica directory.
 */
export class LinkSubscription {
  private readonly subscriptions = new Map<NatsConnection, Subscription>();
  private stopped = false;

  constructor(private readonly options: LinkSubscriptionOptions) {}

  start(): this {
    this.options.link.onConnected((nc) => this.subscribe(nc));
    return this;
  }

  /** Unsubscribes; messages that arrive later are not handed on, and no new connection is subscribed. */
  stop(): void {
    this.stopped = true;
    for (const subscription of this.subscriptions.values()) {
      try {
        subscription.unsubscribe();
      } catch {
        // Already closed with its connection.
      }
    }
    this.subscriptions.clear();
  }

  /** Resolves once the server has seen every subscription made so far. */
  async flush(): Promise<void> {
    await Promise.all([...this.subscriptions.keys()].map((nc) => nc.flush()));
  }

  private subscribe(nc: NatsConnection): void {
    if (this.stopped || this.subscriptions.has(nc)) return;
    const { subject, queue, logger, what, onMessage } = this.options;
    const subscription = nc.subscribe(subject, {
      ...(queue === undefined ? {} : { queue }),
      callback: (error, msg) => {
        if (error) {
          logger.warn({ err: error }, `${what} subscription error`);
          return;
        }
        onMessage(msg, nc);
      },
    });
    this.subscriptions.set(nc, subscription);
    void subscription.closed.then(() => this.subscriptions.delete(nc));
  }
}
