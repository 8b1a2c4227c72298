import { createServer } from 'node:http';
import path from 'node:path';
import {
  createLogger,
  createMetrics,
  createPool,
  ensureDatabase,
  installShutdown,
  listen,
  migrate,
  TokenVerifier,
} from '@custos/service-kit';
import { createApp, SERVICE_NAME } from './app';
import { readPapConfig } from './config';
import { NatsLink } from './propagation/nats-link';
import { OutboxPublisher } from './propagation/outbox-publisher';
import { SnapshotResponder } from './propagation/snapshot-responder';

async function main(): Promise<void> {
  const config = readPapConfig(process.env);
  const logger = createLogger(SERVICE_NAME, config.logLevel);
  await ensureDatabase(config.databaseUrl);
  await migrate({ databaseUrl: config.databaseUrl, schema: 'pap', dir: path.join(__dirname, '..', 'migrations'), logger });
  const pool = createPool(config.databaseUrl, logger);
  const link = new NatsLink({ servers: config.natsUrl, name: SERVICE_NAME, logger }).start();
  const verifier = new TokenVerifier({ jwksUrl: `${config.authUrl}/.well-known/jwks.json` });
  const metrics = createMetrics(SERVICE_NAME);
  const publisher = new OutboxPublisher({ pool, link, prefix: config.natsPrefix, logger, registry: metrics.registry });
  const responder = new SnapshotResponder({ pool, link, prefix: config.natsPrefix, logger });
  const app = createApp({
    pool,
    verifier,
    logger,
    metrics,
    onChange: () => publisher.wake(),
    natsState: () => link.state(),
  });
  publisher.start();
  responder.start();
  const server = createServer(app);
  await listen(server, config.port);
  logger.info({ port: config.port, natsPrefix: config.natsPrefix }, 'pap-service listening');
  installShutdown(server, logger, [
    () => publisher.stop(),
    () => responder.stop(),
    () => link.close(),
    () => pool.end(),
  ]);
}

main().catch((error: unknown) => {
  // The logger may not exist yet: write the failure plainly and exit non-zero.
  console.error('pap-service failed to start:', error);
  process.exit(1);
});
