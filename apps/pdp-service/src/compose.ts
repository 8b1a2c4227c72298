import { createServer, type Server } from 'node:http';
import path from 'node:path';
import type { Pool } from 'pg';
import { connect, type NatsConnection } from 'nats';
import type { LocalPolicyChannel } from '@custos/contracts';
import {
  RevocationList,
  TokenVerifier,
  createLogger,
  createPool,
  createTracing,
  ensureDatabase,
  listen,
  migrate,
  type Closer,
  type Logger,
  type Tracing,
} from '@custos/service-kit';
import { createApp, type PdpListener } from './app';
import type { CallTargets } from './calls/http-json';
import { composeOutboundCalls } from './calls/outbound';
import type { PdpConfig } from './config';
import { Decider } from './decision/decider';
import type { DecisionRecordBuffer } from './decision-records/buffer';
import { startDecisionRecords } from './decision-records/publisher';
import { HistoryHasher } from './history/hashing';
import { RetentionJob } from './history/retention';
import { historySecret } from './history/secret';
import { PgHistoryStore } from './history/store';
import { SERVICE_NAME, createPdpMetrics, type PdpMetrics } from './metrics';
import { PolicySetFollower } from './policy-set/follower';
import { LocalPolicyTransport } from './policy-set/local-transport';
import { NatsPolicyTransport, type PolicyTransport } from './policy-set/transport';
import type { PxpGateway } from './pxp/gateway';
import type { HttpPipResolver } from './pip/resolver';
import { ReplicaStatusPublisher } from './replica-status-publisher';
import { replicaStatus } from './routes/status';
import { TimerScheduler } from './timers/scheduler';

/**
 * What a caller of `composePdp` may put in place of the default, for tests: a logger it reads, metrics without
 * process collectors, a clock it moves, shorter waits. Production passes none.
 */
export interface PdpOverrides {
  logger?: Logger;
  metrics?: PdpMetrics;
  verifier?: TokenVerifier;
  /** The clock of decisions and retention. */
  clock?: { now(): number };
  /** The history pool connects here instead of `databaseUrl` (migrations still go to `databaseUrl`). */
  historyDatabaseUrl?: string;
  /** Backoff between failed snapshot attempts (default 100 ms doubling to 10 s). */
  snapshotBackoff?: { initialMs: number; maxMs: number };
  /** A snapshot attempt fails when no chunk arrived for this long (default 5 s). */
  chunkTimeoutMs?: number;
  /** Min-Policy-Revision wait (default 2 s, api.md §3). */
  minRevisionWaitMs?: number;
  /** Whether retention runs on its interval (default yes); tests run it by hand. */
  startRetention?: boolean;
  /** How long `close` waits for asynchronous PXP executes still pending (default 5 s). */
  pxpDrainMs?: number;
  /**
   * Embedded mode: this pool, shared with the other services, in place of the history pool (its database exists;
   * migrations run through it; ending it is the caller's).
   */
  sharedPool?: Pool;
  /** Embedded mode: follow pap over this in-process channel instead of NATS. */
  policyChannel?: LocalPolicyChannel;
  /** Spans go here instead of where `config.tracing` says (tests: an in-memory exporter). */
  tracing?: Tracing;
}

/** The pdp wired together, not listening yet. */
export interface ComposedPdp {
  config: PdpConfig;
  logger: Logger;
  metrics: PdpMetrics;
  /** The request listener (createApp). */
  listener: PdpListener;
  follower: PolicySetFollower;
  transport: PolicyTransport;
  /** Undefined in embedded mode (`policyChannel`). */
  nats: NatsConnection | undefined;
  /** The pool of history-using decisions, timers and retention. */
  pool: Pool;
  hasher: HistoryHasher;
  store: PgHistoryStore;
  decider: Decider;
  pip: HttpPipResolver;
  pxp: PxpGateway;
  pipTargets: CallTargets;
  pxpTargets: CallTargets;
  scheduler: TimerScheduler | undefined;
  retention: RetentionJob;
  /** The buffer of decision records; undefined when they are off (`PDP_DECISION_RECORDS=off`, embedded mode). */
  records: DecisionRecordBuffer | undefined;
  /** Closers in shutdown order (after the server stopped accepting). */
  closers: Closer[];
  /** Creates the HTTP server and listens on `port` (default `config.port`; 0 for any). */
  listen(port?: number, host?: string): Promise<Server>;
}

/**
 * Config → every part of the pdp → createApp. The one place the pdp is assembled: main.ts and the tests both call
 * it, so what tests run is what runs. Migrates the pdp schema, connects to PostgreSQL and NATS and starts following
 * pap; `listen` opens the port.
 */
export async function composePdp(config: PdpConfig, overrides: PdpOverrides = {}): Promise<ComposedPdp> {
  const logger = overrides.logger ?? createLogger(SERVICE_NAME, config.logLevel);
  logger.info(
    { port: config.port, replica: config.replicaId, natsPrefix: config.natsPrefix, defaultDecision: config.defaultDecision, timeZone: config.timeZone },
    'starting',
  );

  const { sharedPool } = overrides;
  if (!sharedPool) await ensureDatabase(config.databaseUrl);
  const migrations = path.join(__dirname, '..', 'migrations');
  await migrate({ databaseUrl: config.databaseUrl, schema: 'pdp', dir: migrations, logger, ...(sharedPool ? { pool: sharedPool } : {}) });
  const history = config.history;
  // Only history-using decisions, timer claims and retention take a connection; pure decisions never do.
  const pool = sharedPool ?? createPool(overrides.historyDatabaseUrl ?? config.databaseUrl, logger, {
    max: history.poolSize,
    connectionTimeoutMillis: history.timeoutMs,
    statement_timeout: history.timeoutMs,
    query_timeout: history.timeoutMs + 500,
    idle_in_transaction_session_timeout: Math.max(10_000, history.timeoutMs * 5),
  });
  const hasher = new HistoryHasher(await historySecret(pool, history.secret));

  const metrics = overrides.metrics ?? createPdpMetrics();
  const tracing = overrides.tracing ?? createTracing(config.tracing, SERVICE_NAME);
  const store = new PgHistoryStore({
    pool,
    hasher,
    logger,
    synchronousCommit: history.synchronousCommit,
    batchWindowMs: history.batchWindowMs,
    metrics: { failures: (op) => metrics.historyFailures.inc({ op }), phase: (phase, seconds) => metrics.historyPhase.observe({ phase }, seconds) },
    tracing,
  });
  // The follower is made below; nothing polls for stored executes before it started.
  const { pipTargets, pxpTargets, pip, pxp, executions } = composeOutboundCalls({ config, logger, metrics, tracing, pool, registry: () => follower.active?.components });
  const { clock } = overrides;
  const decider = new Decider({
    defaultDecision: config.defaultDecision,
    timeZone: config.timeZone,
    logger,
    history: store,
    pip,
    pxp,
    tracing,
    ...(clock ? { clock } : {}),
  });

  const { nats, transport } = await connectTransport(config, overrides, logger);
  let scheduler: TimerScheduler | undefined;
  const follower = new PolicySetFollower({
    transport,
    logger,
    metrics,
    resyncIntervalMs: config.resyncIntervalMs,
    ...(overrides.snapshotBackoff ? { backoff: overrides.snapshotBackoff } : {}),
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
      catchUp: config.timerCatchUp,
      leaseMs: config.timerLeaseMs,
      checkMs: config.timerCheckMs,
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
    ...(clock ? { now: () => clock.now() } : {}),
  });
  if (overrides.startRetention ?? true) retention.start();
  await follower.start();
  pxp.startPolling();
  // Decision records (issue 24): on the stream beside the log line, never in embedded mode (no NATS there). A stream
  // NATS refuses (its storage cannot hold the size bound, say) turns them off with a warning, not the replica.
  const records =
    nats === undefined || !config.decisionRecords.enabled
      ? undefined
      : await startDecisionRecords({
          nc: nats,
          prefix: config.natsPrefix,
          config: config.decisionRecords,
          replicaId: config.replicaId,
          logger,
          counter: metrics.decisionRecords,
          parametersOf: (solution) => follower.active?.settings.get(solution)?.recordParameters,
          hash: (name, value) => hasher.key(name, null, value),
        }).catch((error: unknown) => {
          logger.warn({ err: error }, 'decision records are off: their stream could not be made (PDP_DECISION_RECORDS_MAX_BYTES, NATS storage)');
          return undefined;
        });
  decider.records = records;

  // Revoked tokens: the list is loaded from auth, followed over NATS and polled (docs/security.md).
  const revocations =
    overrides.verifier === undefined ? new RevocationList({ url: `${config.authUrl}/oauth/revocations`, logger }).start() : undefined;
  if (nats !== undefined) revocations?.follow(nats, config.natsPrefix);
  // Where this replica stands, for pap's replica page and "deployed everywhere" (not in embedded mode: one pdp).
  const statusPublisher =
    nats === undefined
      ? undefined
      : new ReplicaStatusPublisher({
          nc: nats,
          prefix: config.natsPrefix,
          logger,
          status: () => replicaStatus(config.replicaId, follower.status(), transport.connected),
        }).start();
  const listener = createApp({
    logger,
    metrics,
    verifier: overrides.verifier ?? new TokenVerifier({ jwksUrl: `${config.authUrl}/.well-known/jwks.json`, revocations }),
    policies: follower,
    natsConnected: () => transport.connected,
    replicaId: config.replicaId,
    defaultDecision: config.defaultDecision,
    authzenDefault: config.authzenDefault,
    timeZone: config.timeZone,
    decider,
    tracing,
    admission: config.admission,
    ...(config.publicUrl === undefined ? {} : { publicUrl: config.publicUrl }),
    executions: { store: executions, wake: () => void pxp.poll() },
    ...(overrides.minRevisionWaitMs === undefined ? {} : { minRevisionWaitMs: overrides.minRevisionWaitMs }),
  });

  const pxpDrainMs = overrides.pxpDrainMs ?? 5000;
  return {
    config,
    logger,
    metrics,
    listener,
    follower,
    transport,
    nats,
    pool,
    hasher,
    store,
    decider,
    pip,
    pxp,
    pipTargets,
    pxpTargets,
    scheduler,
    retention,
    records,
    closers: [
      () => revocations?.stop(),
      () => statusPublisher?.stop(),
      () => follower.stop(),
      () => scheduler?.stop(),
      () => retention.stop(),
      () => pxp.drain(pxpDrainMs),
      () => records?.close(),
      () => nats?.drain(),
      () => (sharedPool ? undefined : pool.end()),
      () => {
        pipTargets.close();
        pxpTargets.close();
      },
      () => tracing.shutdown(),
      () => logger.flush(),
    ],
    listen: async (port = config.port, host?: string) => {
      const server = createServer({ keepAliveTimeout: 65_000 }, listener);
      await listen(server, port, host);
      logger.info({ port: (server.address() as { port: number } | null)?.port ?? port }, 'listening');
      return server;
    },
  };
}

/** NATS, or in embedded mode the in-process channel to pap. */
async function connectTransport(
  config: PdpConfig,
  overrides: PdpOverrides,
  logger: Logger,
): Promise<{ nats: NatsConnection | undefined; transport: PolicyTransport }> {
  if (overrides.policyChannel) {
    const transport = new LocalPolicyTransport(overrides.policyChannel, {
      logger,
      ...(overrides.chunkTimeoutMs === undefined ? {} : { snapshotTimeoutMs: overrides.chunkTimeoutMs }),
    });
    return { nats: undefined, transport };
  }
  const nats = await connect({
    servers: config.natsServers,
    name: `${SERVICE_NAME} ${config.replicaId}`,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
    waitOnFirstConnect: true,
  });
  const transport = new NatsPolicyTransport(nats, {
    prefix: config.natsPrefix,
    requester: config.replicaId,
    logger,
    ...(overrides.chunkTimeoutMs === undefined ? {} : { chunkTimeoutMs: overrides.chunkTimeoutMs }),
  });
  return { nats, transport };
}
