import { Client, Pool, type PoolConfig } from 'pg';
import type { Logger } from '../observability/logger';
import { databaseHosts, PrimaryPool, PrimaryTarget } from './hosts';

/**
 * The one server's URL of a `DATABASE_URL` that may name several (hosts.ts): the primary among them, found now, or
 * the URL itself when it names one.
 */
export async function primaryUrl(url: string, logger?: Logger): Promise<string> {
  const { urls, multiHost } = databaseHosts(url);
  return multiHost ? new PrimaryTarget(urls, logger).resolve() : url;
}

/**
 * Creates the database named in `url` when it does not exist yet (api.md §1: created on first start). With several
 * servers in the URL, on the primary among them (found through the maintenance database `postgres`, since the
 * database itself may not exist yet).
 */
export async function ensureDatabase(databaseUrl: string): Promise<void> {
  const { urls, multiHost } = databaseHosts(databaseUrl);
  const first = urls[0] ?? databaseUrl;
  const name = decodeURIComponent(new URL(first).pathname.replace(/^\//, ''));
  if (name === '') return;
  const maintenanceUrls = urls.map((url) => {
    const maintenance = new URL(url);
    maintenance.pathname = '/postgres';
    return maintenance.toString();
  });
  const maintenance = multiHost ? await new PrimaryTarget(maintenanceUrls).resolve() : (maintenanceUrls[0] ?? '');
  const client = new Client({ connectionString: maintenance });
  // A server going away mid-statement fails the statement (and so the start, with its sentence); without a listener
  // its `error` event would end the process with a stack trace first.
  client.on('error', () => undefined);
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

/**
 * The service's pool. A URL naming several servers gets a pool whose connections go to the primary among them
 * (hosts.ts: tried in order, kept while it works, searched again after a failure), so a PostgreSQL failover needs no
 * restart: the connections to the old primary fail, and the next ones reach the new one.
 */
export function createPool(url: string, logger: Logger, extra: PoolConfig = {}): Pool {
  const { urls, multiHost } = databaseHosts(url);
  const settings: PoolConfig = { max: 10, idleTimeoutMillis: 30_000, connectionTimeoutMillis: 5_000, ...extra };
  const pool = multiHost ? new PrimaryPool(new PrimaryTarget(urls, logger), settings) : new Pool({ connectionString: url, ...settings });
  // An idle client losing its connection must not crash the process; the pool replaces it. The pool hangs the client
  // on the error (`err.client`): logged as it is, every such line would carry the whole client.
  pool.on('error', (error) => logger.warn({ err: withoutClient(error) }, 'idle database connection failed'));
  // A checked-out client whose server goes away between two queries emits `error` too, and the pool only listens
  // while it is idle: without this listener a PostgreSQL restart crashes the process. Its next query fails instead.
  pool.on('connect', (client) => client.on('error', (error) => logger.warn({ err: error }, 'database connection failed while in use')));
  return pool;
}

/** The error without the pool's `client` property (a copy: the pool's own listeners may still read it). */
function withoutClient(error: Error): Error {
  if (!('client' in error)) return error;
  const copy = Object.assign(Object.create(Object.getPrototypeOf(error) as object) as Error, error, { message: error.message, stack: error.stack });
  delete (copy as Error & { client?: unknown }).client;
  return copy;
}
