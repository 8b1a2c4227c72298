import { createServer } from 'node:http';
import { checkNats, failStartup, installShutdown, listen } from '@custos/service-kit';
import { SERVICE_NAME } from './app';
import { composePap } from './compose';
import { readPapConfig } from './config';

async function main(): Promise<void> {
  const config = readPapConfig(process.env);
  // Once started, pap keeps taking changes while NATS is down (the outbox holds them); a NATS it never reaches or
  // without JetStream at start is a setup mistake, said now rather than as endless retries.
  await checkNats(process.env);
  const pap = composePap(config);
  const { logger } = pap.deps;
  const server = createServer(pap.app);
  try {
    await pap.start();
    await listen(server, config.port);
  } catch (error) {
    // What was logged comes out before the line that says why the start failed.
    await new Promise<void>((resolve) => logger.flush(() => resolve()));
    throw error;
  }
  logger.info({ port: config.port, natsPrefix: config.natsPrefix }, 'pap-service listening');
  installShutdown(server, logger, [() => pap.stop()]);
}

main().catch((error: unknown) => failStartup(SERVICE_NAME, error, process.env));
