import { runner } from 'node-pg-migrate';
import type { ClientBase, Pool } from 'pg';
import type { Logger } from '../observability/logger';
import { primaryUrl } from './database';
import { backoffDelay, type Backoff } from '../timing/backoff';
import { deadlineIn, sleep } from '../timing/sleep';

export interface MigrateOptions {
  databaseUrl: string;
  /** The service's own schema (auth, pap, pdp); created if missing. */
  schema: string;
  /** Folder of the service's migration files. */
  dir: string;
  logger: Logger;
  /**
   * Migrate through a client of this pool instead of a connection of its own: for a database that serves one
   * session at a time (embedded mode), where every service shares one pool.
   */
  pool?: Pool;
}

const LOCK_WAIT_MS = 60_000;
const LOCK_RETRY: Backoff = { initialMs: 50, maxMs: 1000 };

/**
 * Applies pending migrations of one schema. node-pg-migrate holds an advisory lock while it
 * runs and fails at once when another process holds it, so replicas that start together wait
 * their turn here; the later ones then find nothing left to apply.
 */
export async function migrate(options: MigrateOptions): Promise<void> {
  const deadline = deadlineIn(LOCK_WAIT_MS);
  for (let attempt = 1; ; attempt++) {
    try {
      await runOnce(options);
      return;
    } catch (error) {
      const busy = error instanceof Error && /another migration is already running/i.test(error.message);
      if (!busy || deadline.passed()) throw error;
      options.logger.info({ schema: options.schema }, 'another process is migrating; waiting');
      await sleep(backoffDelay(LOCK_RETRY, attempt));
    }
  }
}

async function runOnce(options: MigrateOptions): Promise<void> {
  if (options.pool === undefined) return run(options, { databaseUrl: await primaryUrl(options.databaseUrl, options.logger) });
  const client = await options.pool.connect();
  let broken: Error | undefined;
  try {
    await run(options, { dbClient: client });
  } catch (error) {
    // A failed migration may leave its transaction or lock behind: do not hand the connection on.
    broken = error instanceof Error ? error : new Error(String(error));
    throw error;
  } finally {
    client.release(broken);
  }
}

async function run(options: MigrateOptions, connection: { databaseUrl: string } | { dbClient: ClientBase }): Promise<void> {
  await runner({
    ...connection,
    dir: options.dir,
    direction: 'up',
    schema: options.schema,
    createSchema: true,
    migrationsSchema: options.schema,
    createMigrationsSchema: true,
    migrationsTable: 'pgmigrations',
    checkOrder: true,
    singleTransaction: true,
    log: (message: string) => options.logger.debug({ schema: options.schema }, message),
    verbose: false,
  });
}
