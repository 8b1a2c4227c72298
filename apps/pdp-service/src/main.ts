import { createServer, type Server } from 'node:http';
import path from 'node:path';
import type { Pool } from 'pg';
import { connect } from 'nats';
import {
  TokenVerifier,
  createLogger,
  createPool,
  ensureDatabase,
  installShutdown,
  listen,
  migrate,
  type Closer,
  type Env,
  type Logger,
} from '@custos/service-kit';
import { createApp } from './app';
import { CallTargets } from './calls/http-json';
import { readPdpConfig, type PdpConfig } from './config';
import { Decider } from './decision/decider';
import { HistoryHasher } from './history/hashing';
import { RetentionJob } from './history/retention';
import { historySecret } from './history/secret';
import { PgHistoryStore } from './history/store';
import { SERVICE_NAME, createPdpMetrics } from './metrics';
import { HttpPipResolver } from './pip/resolver';
import { PolicySetFollower } from './policy-set/follower';
import { NatsPolicyTransport } from './policy-set/transport';
import { PxpGateway } from './pxp/gateway';
import { ReplicaStatusPublisher } from './replica-status-publisher';
import { replicaStatus } from './routes/status';
import { TimerScheduler } from './timers/scheduler';

export interface RunningPdp {
  config: PdpConfig;
  logger: Logger;
  server: Server;
  follower: PolicySetFollower;
  /** The pool of history-using decisions, timers and retention. */
  pool: Pool;
  decider: Decider;
  scheduler: TimerScheduler | undefined;
  retention: RetentionJob;
  /** Closers in shutdown order (after the server stopped accepting). */
  closers: Closer[];
}

/** How long shutdown waits for asynchronous PXP executes still pending. */
const PXP_DRAIN_MS = 5000;

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
  const history = config.history;
  // Only history-using decisions, timer claims and retention take a connection; pure decisions never do.
  const pool = createPool(config.databaseUrl, logger, {
    max: history.poolSize,
    connectionTimeoutMillis: history.timeoutMs,
    statement_timeout: history.timeoutMs,
    query_timeout: history.timeoutMs + 500,
    idle_in_transaction_session_timeout: Math.max(10_000, history.timeoutMs * 5),
  });
  const secret = await historySecret(pool, history.secret);

  const metrics = createPdpMetrics();
  const store = new PgHistoryStore({
    pool,
    hasher: new HistoryHasher(secret),
    logger,
    synchronousCommit: history.synchronousCommit,
    metrics: { failures: (op) => metrics.historyFailures.inc({ op }) },
  });
  const pipTargets = new CallTargets({
    timeoutMs: config.pip.timeoutMs,
    maxConcurrency: config.pip.maxConcurrency,
    breakerFailures: config.pip.breakerFailures,
    breakerOpenMs: config.pip.breakerOpenMs,
  });
  const pxpTargets = new CallTargets({
    timeoutMs: config.pxp.timeoutMs,
    maxConcurrency: config.pxp.maxConcurrency,
    breakerFailures: config.pip.breakerFailures,
    breakerOpenMs: config.pip.breakerOpenMs,
  });
  const pip = new HttpPipResolver({
    targets: pipTargets,
    logger,
    cacheEntries: config.pip.cacheEntries,
    onOutcome: (outcome) => metrics.pipCalls.inc({ outcome }),
  });
  const pxp = new PxpGateway({
    targets: pxpTargets,
    logger,
    timeoutMs: config.pxp.timeoutMs,
    syncTimeoutMs: config.pxp.syncTimeoutMs,
    attempts: config.pxp.attempts,
    backoffMs: config.pxp.backoffMs,
    onOutcome: (kind, outcome) => metrics.pxpExecutions.inc({ kind, outcome }),
  });
  const decider = new Decider({ defaultDecision: config.defaultDecision, timeZone: config.timeZone, logger, history: store, pip, pxp });

  const nc = await connect({
    servers: config.natsUrl,
    name: `${SERVICE_NAME} ${config.replicaId}`,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
    waitOnFirstConnect: true,
  });
  const transport = new NatsPolicyTransport(nc, { prefix: config.natsPrefix, requester: config.replicaId, logger });
  let scheduler: TimerScheduler | undefined;
  const follower = new PolicySetFollower({
    transport,
    logger,
    metrics,
    resyncIntervalMs: config.resyncIntervalMs,
    onActivate: (active) => scheduler?.update(active),
  });
  if (config.timers) {
    scheduler = new TimerScheduler({
      pool,
      decider,
      logger,
      timeZone: config.timeZone,
      replicaId: config.replicaId,
      active: () => follower.active,
      onTick: (outcome) => metrics.timerTicks.inc({ outcome }),
    });
  }
  const retention = new RetentionJob({
    pool,
    logger,
    intervalMs: history.retentionIntervalMs,
    state: () => {
      const active = follower.active;
      return active === undefined ? undefined : { revision: active.revision, history: active.history };
    },
    onDeleted: (outcome) => {
      metrics.historyRetentionDeleted.inc({ kind: 'events' }, outcome.events);
      metrics.historyRetentionDeleted.inc({ kind: 'states' }, outcome.states);
      metrics.historyRetentionDeleted.inc({ kind: 'ticks' }, outcome.ticks);
    },
  }).start();
  await follower.start();
  const statusPublisher = new ReplicaStatusPublisher({ nc, prefix: config.natsPrefix, logger, status: () => replicaStatus(config.replicaId, follower.status(), transport.connected) }).start();

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
    decider,
  });
  const server = createServer({ keepAliveTimeout: 65_000 }, listener);
  await listen(server, config.port);
  logger.info({ port: config.port }, 'listening');

  return {
    config,
    logger,
    server,
    follower,
    pool,
    decider,
    scheduler,
    retention,
    closers: [
      () => follower.stop(),
      () => scheduler?.stop(),
      () => retention.stop(),
      () => pxp.drain(PXP_DRAIN_MS),
      () => statusPublisher.stop(),
      () => nc.drain(),
      () => pool.end(),
      () => {
        pipTargets.close();
        pxpTargets.close();
      },
      () => logger.flush(),
    ],
  };
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
