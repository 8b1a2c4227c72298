import path from 'node:path';
import type { Express } from 'express';
import type { Pool, PoolConfig } from 'pg';
import type { LocalPolicyChannel } from '@custos/contracts';
import { CONSOLE_ASSETS_DIR } from '@custos/console';
import {
  createLogger,
  createMetrics,
  createPool,
  createTracing,
  ensureDatabase,
  migrate,
  RevocationList,
  startAuditRetention,
  TokenVerifier,
  type Logger,
  type ServiceMetrics,
  type Tracing,
} from '@custos/service-kit';
import { authTrail } from './audit/auth-trail';
import { papAuditLog } from './audit/trail';
import { createApp, SERVICE_NAME, type AppDeps } from './app';
import type { PapConfig } from './config';
import { ChannelSink } from './propagation/channel-sink';
import { answerLocalSnapshots } from './propagation/local-snapshot';
import { NatsLink } from './propagation/nats-link';
import { OutboxPublisher } from './propagation/outbox-publisher';
import { SnapshotResponder } from './propagation/snapshot-responder';
import { DEFAULT_STREAM_SETTINGS } from './propagation/stream';
import { ReplicaDirectory } from './replicas/replica-directory';
import { DecisionRecordReader } from './decision-records/reader';

export const MIGRATIONS_DIR = path.join(__dirname, '..', 'migrations');

/** What a caller (a test) may put in place of what composePap would make from the config. */
export interface PapOverrides {
  logger?: Logger;
  /** Default: a fresh registry with the process metrics. */
  metrics?: ServiceMetrics;
  verifier?: TokenVerifier;
  /** Settings added to the pool's defaults (size, timeouts). */
  pool?: PoolConfig;
  /**
   * `false`: no NATS link, outbox publisher or snapshot responder. Changes still get revisions and outbox rows, which
   * a pap with propagation publishes. Default `true`.
   */
  propagation?: boolean;
  /** Told after every committed change in place of waking this pap's publisher (tests count or redirect it). */
  onChange?: () => void;
  /** Reported as the NATS state by /health/ready; default the link's (`unknown` without propagation). */
  natsState?: () => string;
  /**
   * Embedded mode: this pool, shared with the other services, in place of one of pap's own (its database exists;
   * migrations run through it; ending it is the caller's).
   */
  sharedPool?: Pool;
  /** Embedded mode: propagate over this in-process channel instead of NATS (`/health/ready` says `in-process`). */
  policyChannel?: LocalPolicyChannel;
  /** Spans go here instead of where `config.tracing` says (tests: an in-memory exporter). */
  tracing?: Tracing;
}

export interface ComposedPap {
  app: Express;
  /** What the app was built from. */
  deps: AppDeps;
  /** Creates the database when missing, brings the schema up to date, then starts propagation. */
  start(): Promise<void>;
  /** Stops propagation, closes NATS and ends the pool; a step that fails is logged and the next one still runs. */
  stop(): Promise<void>;
}

interface Propagation {
  link: NatsLink;
  publisher: OutboxPublisher;
  responder: SnapshotResponder;
  replicas: ReplicaDirectory;
  decisionRecords: DecisionRecordReader;
}

/** Config → dependencies → app, with the hooks that start and stop what runs beside it. */
export function composePap(config: PapConfig, overrides: PapOverrides = {}): ComposedPap {
  const logger = overrides.logger ?? createLogger(SERVICE_NAME, config.logLevel);
  const metrics = overrides.metrics ?? createMetrics(SERVICE_NAME);
  const { sharedPool, policyChannel } = overrides;
  const pool = sharedPool ?? createPool(config.databaseUrl, logger, overrides.pool);
  // Revoked clients and tokens (deleted clients, rotated secrets, RFC 7009): loaded from auth, followed over NATS.
  const revocations = overrides.verifier ? undefined : new RevocationList({ url: `${config.authUrl}/oauth/revocations`, logger });
  const verifier = overrides.verifier ?? new TokenVerifier({ jwksUrl: `${config.authUrl}/.well-known/jwks.json`, revocations });
  const propagates = overrides.propagation !== false;
  const propagation = propagates && !policyChannel ? composePropagation(config, pool, logger, metrics) : undefined;
  const local = propagates && policyChannel ? new OutboxPublisher({ pool, sink: new ChannelSink(policyChannel), logger, registry: metrics.registry }) : undefined;
  let stopAnswering: (() => void) | undefined;
  let stopRetention: (() => void) | undefined;
  const audit = papAuditLog(pool, logger, metrics);
  const tracing = overrides.tracing ?? createTracing(config.tracing, SERVICE_NAME);
  const deps: AppDeps = {
    pool,
    verifier,
    logger,
    metrics,
    onChange: overrides.onChange ?? (() => (local ?? propagation?.publisher)?.wake()),
    natsState: overrides.natsState ?? (() => (local ? 'in-process' : (propagation?.link.state() ?? 'unknown'))),
    console: { assetsDir: CONSOLE_ASSETS_DIR, authUrl: config.authUrl, pdpUrl: config.pdpUrl },
    replicas: propagation?.replicas,
    ...(propagation ? { decisionRecords: propagation.decisionRecords } : {}),
    trustProxy: config.trustProxy,
    timeZone: config.timeZone,
    audit,
    authTrail: authTrail(config.authUrl, logger),
    tracing,
  };
  return {
    app: createApp(deps),
    deps,
    start: async () => {
      if (!sharedPool) await ensureDatabase(config.databaseUrl);
      await migrate({ databaseUrl: config.databaseUrl, schema: 'pap', dir: MIGRATIONS_DIR, logger, ...(sharedPool ? { pool: sharedPool } : {}) });
      revocations?.start();
      stopRetention = startAuditRetention(audit, config.auditRetention, logger);
      if (revocations && propagation) propagation.link.onConnected((nc) => revocations.follow(nc, config.natsPrefix));
      if (local && policyChannel) {
        stopAnswering = answerLocalSnapshots(policyChannel, pool, logger);
        local.start();
      }
      if (propagation) {
        propagation.link.start();
        propagation.publisher.start();
        propagation.responder.start();
        propagation.replicas.start();
      }
    },
    stop: async () => {
      const steps = propagation
        ? [() => propagation.publisher.stop(), () => propagation.responder.stop(), () => propagation.replicas.stop(), () => propagation.link.close()]
        : [];
      if (local) steps.push(() => local.stop(), () => Promise.resolve(stopAnswering?.()));
      for (const step of [
        () => Promise.resolve(stopRetention?.()),
        () => revocations?.stop(),
        ...steps,
        () => (sharedPool ? Promise.resolve() : pool.end()),
        () => tracing.shutdown(),
      ]) {
        try {
          await step();
        } catch (error) {
          logger.warn({ err: error }, 'error while stopping');
        }
      }
    },
  };
}

function composePropagation(config: PapConfig, pool: Pool, logger: Logger, metrics: ServiceMetrics): Propagation {
  const link = new NatsLink({ servers: config.natsServers, name: SERVICE_NAME, logger });
  const prefix = config.natsPrefix;
  return {
    link,
    publisher: new OutboxPublisher({
      pool,
      link,
      prefix,
      logger,
      registry: metrics.registry,
      stream: { ...DEFAULT_STREAM_SETTINGS, ...(config.streamReplicas === undefined ? {} : { replicas: config.streamReplicas }) },
    }),
    responder: new SnapshotResponder({ pool, link, prefix, logger }),
    replicas: new ReplicaDirectory({ link, prefix, logger }),
    decisionRecords: new DecisionRecordReader({ connection: () => link.connection(), prefix }),
  };
}
