import path from 'node:path';
import { Writable } from 'node:stream';
import type { Express } from 'express';
import type { Pool } from 'pg';
import request from 'supertest';
import { createLogger, createMetrics, createPool, migrate, type Logger } from '@custos/service-kit';
import { createTestDatabase, type TestDatabase } from '@custos/test-kit';
import type { AppDeps } from '../src/app';
import { composeAuth } from '../src/compose';
import { readAuthConfig } from '../src/config';
import { basicAuthorization } from '../src/oauth/basic';
import { NO_FEED } from '../src/revocation/feed';

export const MIGRATIONS = path.join(__dirname, '..', 'migrations');

/** A logger whose lines are kept in memory, so tests can look at them (and for secrets in them). */
export function memoryLogger(): { logger: Logger; lines: () => string } {
  let text = '';
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString();
      done();
    },
  });
  return { logger: createLogger('auth-service', 'debug', sink), lines: () => text };
}

export interface TestEnv {
  database: TestDatabase;
  pool: Pool;
  logger: Logger;
  logs: () => string;
  /** A fresh app on this database (a new instance, as after a restart). */
  app(overrides?: Partial<AppDeps>): Promise<Express>;
  close(): Promise<void>;
}

/** A fresh database with the auth schema migrated, and a way to build apps on it. */
export async function testEnv(): Promise<TestEnv> {
  const database = await createTestDatabase('custos_auth_test');
  const { logger, lines } = memoryLogger();
  await migrate({ databaseUrl: database.url, schema: 'auth', dir: MIGRATIONS, logger });
  const pool = createPool(database.url, logger);
  return {
    database,
    pool,
    logger,
    logs: lines,
    app: async ({ config, ...overrides } = {}) => {
      const base = readAuthConfig({ DATABASE_URL: database.url, LOG_LEVEL: 'debug' });
      const composed = await composeAuth(
        {
          ...base,
          bootstrap: config?.bootstrap,
          trustProxy: config?.trustProxy ?? false,
          ...(config?.keyEncryption === undefined ? {} : { keyEncryption: config.keyEncryption }),
        },
        // No NATS for app-level tests unless a test brings its own feed: nothing is left open after them.
        { pool, logger, metrics: createMetrics('auth-service', false), revocationFeed: NO_FEED, ...overrides },
      );
      return composed.app;
    },
    close: async () => {
      await pool.end();
      await database.drop();
    },
  };
}

export const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

export interface TokenAnswer {
  access_token: string;
  token_type: string;
  expires_in: number;
  scope: string;
}

/** A token of a client by the form method; fails the test when none is issued. */
export async function tokenFor(app: Express, clientId: string, clientSecret: string, scope?: string): Promise<string> {
  const fields: Record<string, string> = { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret };
  if (scope !== undefined) fields.scope = scope;
  const response = await request(app).post('/oauth/token').type('form').send(form(fields));
  if (response.status !== 200) throw new Error(`token request failed: ${response.status} ${response.text}`);
  return (response.body as TokenAnswer).access_token;
}

export { basicAuthorization };

export async function countRows(pool: Pool, table: 'auth.clients' | 'auth.signing_keys'): Promise<number> {
  const result = await pool.query<{ n: string }>(`SELECT count(*) AS n FROM ${table}`);
  return Number(result.rows[0]?.n ?? Number.NaN);
}
