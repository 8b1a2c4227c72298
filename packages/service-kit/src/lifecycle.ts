import type { Server } from 'node:http';
import type { Logger } from './observability/logger';

export type Closer = () => Promise<void> | void;

/** Listens and resolves once the port is bound. */
export function listen(server: Server, port: number, host = '0.0.0.0'): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/**
 * Graceful shutdown on SIGTERM/SIGINT: stop accepting, let in-flight requests finish (bounded),
 * then run the closers (NATS, pools, loggers) in order.
 */
export function installShutdown(server: Server, logger: Logger, closers: Closer[], graceMs = 10_000): () => Promise<void> {
  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      logger.info('shutting down');
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const timer = setTimeout(() => server.closeAllConnections(), graceMs);
      await closed;
      clearTimeout(timer);
      for (const close of closers) {
        try {
          await close();
        } catch (error) {
          logger.warn({ err: error }, 'error while closing');
        }
      }
      logger.info('stopped');
      logger.flush?.();
    })();
    return stopping;
  };
  const onSignal = (signal: NodeJS.Signals) => {
    logger.info({ signal }, 'signal received');
    void stop().then(() => process.exit(0));
  };
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
  return stop;
}
