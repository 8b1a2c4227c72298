import { Client, Pool, type PoolConfig } from 'pg';
import type { Logger } from '../observability/logger';

/** Creates the database named in `url` when it does not exist yet (api.md §1: created on first start). */
export async function ensureDatabase(url: string): Promise<void> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.replace(/^\//, ''));
  if (name === '') return;
  const maintenance = new URL(url);
  maintenance.pathname = '/postgres';
  const client = new Client({ connectionString: maintenance.toString() });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount === 0) {
      try {
        await client.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
      } catch (error) {
        // Several services (or replicas) may race to create it; losing that race is fine.
        if ((error as { code?: string }).code !== '42P04' && (error as { code?: string }).code !== '23505') throw error;
      }
    }
  } finally {
    await client.end();
  }
}

export function createPool(url: string, logger: Logger, extra: PoolConfig = {}): Pool {
  const pool = new Pool({ connectionString: url, max: 10, idleTimeoutMillis: 30_000, connectionTimeoutMillis: 5_000, ...extra });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', (error) => logger.warn({ err: error }, 'idle database connection failed'));
  // A checked-out client whose server goes away between two queries emits `error` too, and the pool only listens
  // while it is idle: without this listener a PostgreSQL restart crashes the process. Its next query fails instead.
  pool.on('connect', (client) => client.on('error', (error) => logger.warn({ err: error }, 'database connection failed while in use')));
  return pool;
}
