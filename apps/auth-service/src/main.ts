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
} from '@custos/service-kit';
import { createApp, SERVICE_NAME } from './app';
import { readAuthConfig } from './config';
import { natsRevocationFeed } from './revocation/feed';

async function main(): Promise<void> {
  const config = readAuthConfig(process.env);
  const logger = createLogger(SERVICE_NAME, config.logLevel);
  try {
    await ensureDatabase(config.databaseUrl);
    await migrate({ databaseUrl: config.databaseUrl, schema: 'auth', dir: path.join(__dirname, '..', 'migrations'), logger });
    const pool = createPool(config.databaseUrl, logger);
    const metrics = createMetrics(SERVICE_NAME);
    // Revocations are announced over NATS (security issue 16); auth starts and serves without it.
    const revocationFeed = natsRevocationFeed({ natsUrl: config.natsUrl, natsPrefix: config.natsPrefix, logger });
    const app = await createApp({ pool, logger, metrics, config, rateLimit: config.rateLimit, revocationFeed });
    const server = createServer(app);
    await listen(server, config.port);
    logger.info({ port: config.port }, 'auth-service listening');
    installShutdown(server, logger, [() => revocationFeed.close(), () => pool.end()]);
  } catch (error) {
    logger.fatal({ err: error }, 'auth-service failed to start');
    logger.flush(() => process.exit(1));
  }
}

main().catch((error: unknown) => {
  // Configuration errors come before there is a logger.
  process.stderr.write(`${JSON.stringify({ level: 'fatal', service: SERVICE_NAME, msg: (error as Error).message ?? String(error) })}\n`);
  process.exit(1);
});
