import { createServer, type Server } from 'node:http';
import path from 'node:path';
import { connect } from 'nats';
import { TokenVerifier, createLogger, ensureDatabase, installShutdown, listen, migrate, type Closer, type Env, type Logger } from '@custos/service-kit';
import { createApp } from './app';
import { readPdpConfig, type PdpConfig } from './config';
import { SERVICE_NAME, createPdpMetrics } from './metrics';
import { PolicySetFollower } from './policy-set/follower';
import { NatsPolicyTransport } from './policy-set/transport';

export interface RunningPdp {
  config: PdpConfig;
  logger: Logger;
  server: Server;
  follower: PolicySetFollower;
  /** Closers in shutdown order (after the server stopped accepting). */
  closers: Closer[];
}

/** Config → dependencies → createApp → listen. Nothing else happens here. */
export async function start(env: Env): Promise<RunningPdp> {
  const config = readPdpConfig(env);
  const logger = createLogger(SERVICE_NAME, config.logLevel);
  logger.info(
    { port: config.port, replica: config.replicaId, natsPrefix: config.natsPrefix, defaultDecision: config.defaultDecision, timeZone: config.timeZone },
    'starting',
  );

  await ensureDatabase(config.databaseUrl);
  await migrate({ databaseUrl: config.databaseUrl, schema: 'pdp', dir: path.join(__dirname, '..', 'migrations'), logger });

  const nc = await connect({
    servers: config.natsUrl,
    name: `${SERVICE_NAME} ${config.replicaId}`,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
    waitOnFirstConnect: true,
  });
  const metrics = createPdpMetrics();
  const transport = new NatsPolicyTransport(nc, { prefix: config.natsPrefix, requester: config.replicaId, logger });
  const follower = new PolicySetFollower({ transport, logger, metrics, resyncIntervalMs: config.resyncIntervalMs });
  await follower.start();

  const verifier = new TokenVerifier({ jwksUrl: `${config.authUrl}/.well-known/jwks.json` });
  const listener = createApp({
    logger,
    metrics,
    verifier,
    policies: follower,
    natsConnected: () => transport.connected,
    replicaId: config.replicaId,
    defaultDecision: config.defaultDecision,
    timeZone: config.timeZone,
  });
  const server = createServer({ keepAliveTimeout: 65_000 }, listener);
  await listen(server, config.port);
  logger.info({ port: config.port }, 'listening');

  return { config, logger, server, follower, closers: [() => follower.stop(), () => nc.drain(), () => logger.flush()] };
}

if (require.main === module) {
  start(process.env).then(
    ({ server, logger, closers }) => void installShutdown(server, logger, closers),
    (error: unknown) => {
      console.error(`${SERVICE_NAME} failed to start: ${error instanceof Error ? error.message : String(error)}`);
      process.exit(1);
    },
  );
}
