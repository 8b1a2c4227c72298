import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { Pool } from 'pg';
import type { Logger } from '@custos/service-kit';

/** PostgreSQL from PGlite, kept in a folder, served to `pg` on a local port that only this process uses. */
export interface EmbeddedPostgres {
  /** `postgres://…/postgres` on the socket server's port. */
  url: string;
  /**
   * The one pool of every service. PGlite is one PostgreSQL session: the socket server admits one connection, and
   * two connections would share that session anyway (their transactions and unnamed statements would mix), so every
   * service takes turns on this pool's single connection.
   */
  pool: Pool;
  close(): Promise<void>;
}

/** Waiting for the shared connection longer than this fails the statement (a history-using decision fails closed). */
const CONNECTION_WAIT_MS = 10_000;

export async function startEmbeddedPostgres(dataDir: string, logger: Logger): Promise<EmbeddedPostgres> {
  mkdirSync(dataDir, { recursive: true });
  const db = await PGlite.create(dataDir);
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: 1 });
  await server.start();
  const url = `postgres://postgres@${server.getServerConn()}/postgres`;
  const pool = new Pool({ connectionString: url, max: 1, idleTimeoutMillis: 0, connectionTimeoutMillis: CONNECTION_WAIT_MS });
  pool.on('error', (error) => logger.warn({ err: error }, 'embedded database connection failed'));
  return {
    url,
    pool,
    close: async () => {
      await pool.end();
      await server.stop();
      await db.close();
    },
  };
}
