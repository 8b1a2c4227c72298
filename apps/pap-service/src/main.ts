import { createServer } from 'node:http';
import { installShutdown, listen } from '@custos/service-kit';
import { composePap } from './compose';
import { readPapConfig } from './config';

async function main(): Promise<void> {
  const config = readPapConfig(process.env);
  const pap = composePap(config);
  await pap.start();
  const server = createServer(pap.app);
  await listen(server, config.port);
  const { logger } = pap.deps;
  logger.info({ port: config.port, natsPrefix: config.natsPrefix }, 'pap-service listening');
  installShutdown(server, logger, [() => pap.stop()]);
}

main().catch((error: unknown) => {
  // The logger may not exist yet: write the failure plainly and exit non-zero.
  console.error('pap-service failed to start:', error);
  process.exit(1);
});
