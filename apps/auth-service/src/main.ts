import { createLogger, installShutdown } from '@custos/service-kit';
import { SERVICE_NAME } from './app';
import { composeAuth } from './compose';
import { readAuthConfig } from './config';

/** Config → composeAuth → listen. Nothing else happens here. */
async function main(): Promise<void> {
  const config = readAuthConfig(process.env);
  const logger = createLogger(SERVICE_NAME, config.logLevel);
  try {
    const auth = await composeAuth(config, { logger });
    const server = await auth.listen();
    installShutdown(server, logger, auth.closers);
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
