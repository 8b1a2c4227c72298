import { Writable } from 'node:stream';
import { Client } from 'pg';
import { createLogger, createPool } from '@custos/service-kit';
import { createTestDatabase, waitFor, type TestDatabase } from '@custos/test-kit';

describe('createPool', () => {
  let database: TestDatabase;
  const lines: string[] = [];
  const logger = createLogger('test', 'warn', new Writable({ write: (chunk: Buffer, _e, done) => (lines.push(chunk.toString()), done()) }));

  beforeAll(async () => {
    database = await createTestDatabase('custos_pool');
  });

  afterAll(async () => {
    await database.drop();
  });

  it('survives the server dropping a connection that is checked out between queries, and fails its next query', async () => {
    const pool = createPool(database.url, logger);
    const client = await pool.connect();
    const pid = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]?.pid;
    const admin = new Client({ connectionString: database.url });
    await admin.connect();
    try {
      // What a PostgreSQL restart does to every connection: without a listener the `error` event would be thrown.
      await admin.query('SELECT pg_terminate_backend($1)', [pid]);
      await waitFor(() => lines.some((line) => line.includes('database connection failed while in use')), { what: 'the logged failure' });
      await expect(client.query('SELECT 1')).rejects.toThrow();
      client.release(true);
      expect((await pool.query<{ one: number }>('SELECT 1 AS one')).rows[0]?.one).toBe(1);
    } finally {
      await admin.end();
      await pool.end();
    }
  });
});
