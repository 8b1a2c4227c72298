import type { Server } from 'node:http';
import { checkNats, createLogger, failStartup, installShutdown, type Env } from '@custos/service-kit';
import { composePdp, type ComposedPdp } from './compose';
import { readPdpConfig } from './config';
import { SERVICE_NAME } from './metrics';

/** The pdp as `start` leaves it: composed and listening. */
export type RunningPdp = ComposedPdp & { server: Server };

/** Config → composePdp → listen. Nothing else happens here. */
export async function start(env: Env): Promise<RunningPdp> {
  const config = readPdpConfig(env);
  // composePdp waits for NATS without end; a NATS never reached or without JetStream at start is said at once.
  await checkNats(env);
  const logger = createLogger(SERVICE_NAME, config.logLevel);
  try {
    const pdp = await composePdp(config, { logger });
    // Behind a gateway that finds replicas by name, a new one gets requests as soon as it listens; before its first
    // policy set it could only answer 503 (PDP_START_WAIT_MS, set in docker-compose.yml).
    if (config.startWaitMs > 0 && !(await pdp.follower.waitForRevision(0, config.startWaitMs))) {
      logger.warn({ waitedMs: config.startWaitMs }, 'no policy set yet; listening anyway (503 until one is active)');
    }
    return { ...pdp, server: await pdp.listen() };
  } catch (error) {
    // What was logged comes out before the line that says why the start failed.
    await new Promise<void>((resolve) => logger.flush(() => resolve()));
    throw error;
  }
}

if (require.main === module) {
  start(process.env).then(
    ({ server, logger, closers }) => void installShutdown(server, logger, closers),
    (error: unknown) => failStartup(SERVICE_NAME, error, process.env),
  );
}
