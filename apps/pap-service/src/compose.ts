import path from 'node:path';
import type { Express } from 'express';
import type { Pool, PoolConfig } from 'pg';
import {
  createLogger,
  createMetrics,
  createPool,
  ensureDatabase,
  migrate,
  RevocationList,
  TokenVerifier,
  type Logger,
  type ServiceMetrics,
} from '@custos/service-kit';
import { createApp, SERVICE_NAME, type AppDeps } from './app';
import type { PapConfig } from './config';
import { NatsLink } from './propagation/nats-link';
import { OutboxPublisher } from './propagation/outbox-publisher';
import { SnapshotResponder } from './propagation/snapshot-responder';

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
}

/** Config → dependencies → app, with the hooks that start and stop what runs beside it. */
export function composePap(config: PapConfig, overrides: PapOverrides = {}): ComposedPap {
  const logger = overrides.logger ?? createLogger(SERVICE_NAME, config.logLevel);
  const metrics = overrides.metrics ?? createMetrics(SERVICE_NAME);
  const pool = createPool(config.databaseUrl, logger, overrides.pool);
  // Revoked clients and tokens (deleted clients, rotated secrets, RFC 7009): loaded from auth, followed over NATS.
  const revocations = overrides.verifier ? undefined : new RevocationList({ url: `${config.authUrl}/oauth/revocations`, logger });
  const verifier = overrides.verifier ?? new TokenVerifier({ jwksUrl: `${config.authUrl}/.well-known/jwks.json`, revocations });
  const propagation = overrides.propagation === false ? undefined : composePropagation(config, pool, logger, metrics);
  const deps: AppDeps = {
    pool,
    verifier,
    logger,
    metrics,
    onChange: overrides.onChange ?? (() => propagation?.publisher.wake()),
    natsState: overrides.natsState ?? (() => propagation?.link.state() ?? 'unknown'),
  };
  return {
    app: createApp(deps),
    deps,
    start: async () => {
      await ensureDatabase(config.databaseUrl);
      await migrate({ databaseUrl: config.databaseUrl, schema: 'pap', dir: MIGRATIONS_DIR, logger });
      revocations?.start();
      if (revocations && propagation) propagation.link.onConnected((nc) => revocations.follow(nc, config.natsPrefix));
      if (propagation) {
        propagation.link.start();
        propagation.publisher.start();
        propagation.responder.start();
      }
    },
    stop: async () => {
      const steps = propagation
        ? [() => propagation.publisher.stop(), () => propagation.responder.stop(), () => propagation.link.close()]
        : [];
      for (const step of [() => revocations?.stop(), ...steps, () => pool.end()]) {
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
  const link = new NatsLink({ servers: config.natsUrl, name: SERVICE_NAME, logger });
  const prefix = config.natsPrefix;
  return {
    link,
    publisher: new OutboxPublisher({ pool, link, prefix, logger, registry: metrics.registry }),
    responder: new SnapshotResponder({ pool, link, prefix, logger }),
  };
}
