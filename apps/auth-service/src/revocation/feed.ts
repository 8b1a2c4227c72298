import { connect, type NatsConnection } from 'nats';
import { revocationSubject, toRevocationDocument, type Logger, type RevocationEntry } from '@custos/service-kit';

/**
 * Where auth announces revocations as it stores them, so pap and pdp apply them at once. Optional:
 * without it they learn them by polling `GET /oauth/revocations`.
 */
export interface RevocationFeed {
  publish(entries: readonly RevocationEntry[]): void;
  close(): Promise<void>;
}

export const NO_FEED: RevocationFeed = { publish: () => undefined, close: async () => undefined };

const encode = (entries: readonly RevocationEntry[]) => Buffer.from(JSON.stringify(toRevocationDocument(entries)), 'utf8');

export interface FeedSettings {
  /** The NATS servers (NATS_URL's list). */
  natsServers: string[];
  natsPrefix: string;
  logger: Logger;
}

/**
 * auth's NATS connection for revocations: connects in the background and keeps reconnecting; auth
 * starts and serves without it. A revocation made while it is down reaches pap and pdp by their poll.
 */
export function natsRevocationFeed({ natsServers, natsPrefix, logger }: FeedSettings): RevocationFeed {
  const subject = revocationSubject(natsPrefix);
  let nc: NatsConnection | undefined;
  let closed = false;
  void connect({ servers: natsServers, name: 'auth-service', maxReconnectAttempts: -1, reconnectTimeWait: 500, waitOnFirstConnect: true }).then(
    (connection) => {
      if (closed) return connection.close();
      nc = connection;
      logger.info('nats connected: revocations are published as they are made');
    },
    (error: unknown) => logger.warn({ err: error }, 'nats unavailable: pap and pdp learn revocations by polling'),
  );
  return {
    publish: (entries) => {
      if (!nc || nc.isClosed()) {
        logger.warn({ revocations: entries.length }, 'revocation not published (no nats connection): pap and pdp learn it by polling');
        return;
      }
      try {
        nc.publish(subject, encode(entries));
      } catch (error) {
        logger.warn({ err: error }, 'revocation not published: pap and pdp learn it by polling');
      }
    },
    close: async () => {
      closed = true;
      // A connect still under way closes its connection as soon as it has one (see above).
      if (nc && !nc.isClosed()) await nc.drain().catch(() => nc?.close());
    },
  };
}

/** One publication from a short-lived process (the clients CLI): connects, publishes, flushes, closes. */
export async function publishOnce(settings: Omit<FeedSettings, 'logger'>, entries: readonly RevocationEntry[]): Promise<boolean> {
  let nc: NatsConnection | undefined;
  try {
    nc = await connect({ servers: settings.natsServers, name: 'auth-cli', timeout: 2000, maxReconnectAttempts: 0 });
    nc.publish(revocationSubject(settings.natsPrefix), encode(entries));
    await nc.drain();
    return true;
  } catch {
    await nc?.close().catch(() => undefined);
    return false;
  }
}
