import { runner } from 'node-pg-migrate';
import type { Logger } from '../observability/logger';

export interface MigrateOptions {
  databaseUrl: string;
  /** The service's own schema (auth, pap, pdp); created if missing. */
  schema: string;
  /** Folder of the service's migration files. */
  dir: string;
  logger: Logger;
}

/**
 * Applies pending migrations of one schema. node-pg-migrate holds an advisory lock while it
 * runs, so replicas that start together apply each migration once.
 */
export async function migrate(options: MigrateOptions): Promise<void> {
  await runner({
    databaseUrl: options.databaseUrl,
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
