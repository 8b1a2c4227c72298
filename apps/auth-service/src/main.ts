import { createLogger, failStartup, installShutdown } from '@custos/service-kit';
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
    // The lines logged so far come first, then the one that says why the start failed.
    logger.flush(() => failStartup(SERVICE_NAME, error, process.env));
  }
}

// Configuration errors come before there is a logger.
main().catch((error: unknown) => failStartup(SERVICE_NAME, error, process.env));
