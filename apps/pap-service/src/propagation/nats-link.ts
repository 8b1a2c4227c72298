import { connect, DebugEvents, Events, type NatsConnection } from 'nats';
import { backoffDelay, type Logger } from '@custos/service-kit';

export type NatsState = 'connecting' | 'connected' | 'reconnecting' | 'closed';

export interface NatsLinkOptions {
  servers: string | string[];
  name: string;
  logger: Logger;
  /** First retry delay of the initial connect, doubled up to `maxRetryMs`. */
  retryMs?: number;
  maxRetryMs?: number;
}

/**
 * The service's NATS connection, which need not exist yet: pap must start and keep taking changes
 * while NATS is down (the outbox holds them). The first connect is retried with backoff until it
 * succeeds; after that nats.js reconnects forever (`maxReconnectAttempts: -1`). Listeners learn
 * about every (re)connect, so the publisher can flush and the responder can subscribe.
 */
export class NatsLink {
  private nc: NatsConnection | undefined;
  private current: NatsState = 'connecting';
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;
  private attempts = 0;
  private readonly listeners: Array<(nc: NatsConnection) => void> = [];

  constructor(private readonly options: NatsLinkOptions) {}

  start(): this {
    void this.tryConnect();
    return this;
  }

  /** The connection when it is usable right now, else undefined. */
  connection(): NatsConnection | undefined {
    return this.current === 'connected' ? this.nc : undefined;
  }

  state(): NatsState {
    return this.current;
  }

  /** Called with the connection on the first connect and after every reconnect (and now, if connected). */
  onConnected(listener: (nc: NatsConnection) => void): void {
    this.listeners.push(listener);
    const nc = this.connection();
    if (nc) listener(nc);
  }

  /** Drains the connection (pending publishes are flushed) and stops any connect attempt. */
  async close(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    const nc = this.nc;
    const connected = this.current === 'connected';
    this.current = 'closed';
    if (nc && !nc.isClosed()) {
      if (!connected) {
        // Nothing can be flushed to a server we are not connected to.
        await nc.close().catch(() => undefined);
        return;
      }
      try {
        await nc.drain();
      } catch (error) {
        this.options.logger.warn({ err: error }, 'nats drain failed');
        await nc.close().catch(() => undefined);
      }
    }
  }

  private async tryConnect(): Promise<void> {
    if (this.stopped) return;
    this.current = 'connecting';
    try {
      const nc = await connect({
        servers: this.options.servers,
        name: this.options.name,
        maxReconnectAttempts: -1,
        reconnectTimeWait: 250,
        timeout: 2000,
      });
      if (this.stopped) {
        await nc.close();
        return;
      }
      this.attempts = 0;
      this.nc = nc;
      this.current = 'connected';
      this.options.logger.info({ server: nc.getServer() }, 'nats connected');
      this.watch(nc);
      this.notify(nc);
    } catch (error) {
      if (this.stopped) return;
      this.attempts++;
      const delay = backoffDelay({ initialMs: this.options.retryMs ?? 250, maxMs: this.options.maxRetryMs ?? 2000 }, this.attempts);
      const log = { err: error, retryInMs: delay, attempts: this.attempts };
      if (this.attempts === 1 || this.attempts % 30 === 0) this.options.logger.warn(log, 'nats unavailable');
      else this.options.logger.debug(log, 'nats unavailable');
      this.timer = setTimeout(() => void this.tryConnect(), delay);
    }
  }

  private watch(nc: NatsConnection): void {
    void (async () => {
      for await (const status of nc.status()) {
        if (this.nc !== nc) break;
        if (status.type === Events.Disconnect || status.type === DebugEvents.Reconnecting) {
          if (this.current === 'connected') this.options.logger.warn('nats disconnected; reconnecting');
          this.current = 'reconnecting';
        } else if (status.type === Events.Reconnect) {
          this.current = 'connected';
          this.options.logger.info({ server: nc.getServer() }, 'nats reconnected');
          this.notify(nc);
        }
      }
    })().catch((error: unknown) => this.options.logger.warn({ err: error }, 'nats status watch failed'));
    void nc.closed().then((error) => {
      if (this.stopped || this.nc !== nc) return;
      // Closed without our asking (e.g. an authorization error): start over.
      this.options.logger.warn({ err: error }, 'nats connection closed; connecting again');
      this.nc = undefined;
      void this.tryConnect();
    });
  }

  private notify(nc: NatsConnection): void {
    for (const listener of this.listeners) {
      try {
        listener(nc);
      } catch (error) {
        this.options.logger.error({ err: error }, 'nats listener failed');
      }
    }
  }
}
