import { createServer, type Server } from 'node:http';
import path from 'node:path';
import type { Express } from 'express';
import type { Pool } from 'pg';
import {
  createLogger,
  createTracing,
  createMetrics,
  createPool,
  ensureDatabase,
  listen,
  migrate,
  startAuditRetention,
  type Closer,
  type Logger,
  type ServiceMetrics,
  type Tracing,
} from '@custos/service-kit';
import { authAuditLog } from './audit/trail';
import { createApp, SERVICE_NAME, type AppDeps } from './app';
import type { AuthConfig } from './config';
import { natsRevocationFeed, type RevocationFeed } from './revocation/feed';

/** What a caller of `composeAuth` may put in place of the default, for tests. Production passes none. */
export interface AuthOverrides {
  logger?: Logger;
  metrics?: ServiceMetrics;
  /**
   * A pool to share (several instances on one database, as after a restart, or every service on embedded
   * PostgreSQL); closing it is then the caller's. Its database must exist; migrations run through it.
   */
  pool?: Pool;
  clock?: AppDeps['clock'];
  /** Replaces parts of `config.rateLimit` (e.g. a high limit so tests are not limited). */
  rateLimit?: AppDeps['rateLimit'];
  /** How a slowed sign-in waits (tests count the waits instead of taking them). */
  pause?: AppDeps['pause'];
  /** Spans go here instead of where `config.tracing` says (tests: an in-memory exporter). */
  tracing?: Tracing;
  /** Where revocations are announced; by default NATS at `config.natsServers` (auth starts and serves without it). */
  revocationFeed?: RevocationFeed;
}

/** auth-service wired together, not listening yet. */
export interface ComposedAuth {
  config: AuthConfig;
  logger: Logger;
  pool: Pool;
  app: Express;
  /** Closers in shutdown order (after the server stopped accepting). */
  closers: Closer[];
  /** Creates the HTTP server and listens on `port` (default `config.port`). */
  listen(port?: number, host?: string): Promise<Server>;
}

/**
 * Config → database (created and migrated) → pool → createApp. The one place auth-service is assembled: main.ts and
 * the tests both call it.
 */
export async function composeAuth(config: AuthConfig, overrides: AuthOverrides = {}): Promise<ComposedAuth> {
  const logger = overrides.logger ?? createLogger(SERVICE_NAME, config.logLevel);
  if (!overrides.pool) await ensureDatabase(config.databaseUrl);
  await migrate({
    databaseUrl: config.databaseUrl,
    schema: 'auth',
    dir: path.join(__dirname, '..', 'migrations'),
    logger,
    ...(overrides.pool ? { pool: overrides.pool } : {}),
  });
  const pool = overrides.pool ?? createPool(config.databaseUrl, logger);
  const revocationFeed =
    overrides.revocationFeed ?? natsRevocationFeed({ natsServers: config.natsServers, natsPrefix: config.natsPrefix, logger });
  const metrics = overrides.metrics ?? createMetrics(SERVICE_NAME);
  const audit = authAuditLog(pool, logger, metrics);
  const tracing = overrides.tracing ?? createTracing(config.tracing, SERVICE_NAME);
  const app = await createApp({
    pool,
    tracing,
    logger,
    metrics,
    audit,
    config,
    rateLimit: { ...config.rateLimit, ...overrides.rateLimit },
    revocationFeed,
    ...(overrides.clock ? { clock: overrides.clock } : {}),
    ...(overrides.pause ? { pause: overrides.pause } : {}),
  });
  const stopRetention = startAuditRetention(audit, config.auditRetention, logger);
  return {
    config,
    logger,
    pool,
    app,
    closers: [
      () => Promise.resolve(stopRetention()),
      () => revocationFeed.close(),
      ...(overrides.pool ? [] : [() => pool.end()]),
      () => tracing.shutdown(),
    ],
    listen: async (port = config.port, host?: string) => {
      const server = createServer(app);
      await listen(server, port, host);
      logger.info({ port }, 'auth-service listening');
      return server;
    },
  };
}
