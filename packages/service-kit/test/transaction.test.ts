import { Client, type Pool } from 'pg';
import { createLogger, createPool, withTransaction } from '@custos/service-kit';
import { createTestDatabase, type TestDatabase } from '@custos/test-kit';

describe('withTransaction', () => {
  let database: TestDatabase;
  let pool: Pool;

  beforeAll(async () => {
    database = await createTestDatabase('custos_transaction');
    pool = createPool(database.url, createLogger('test', 'silent'), { max: 1 });
    await pool.query('CREATE TABLE notes (text text NOT NULL)');
  });

  afterAll(async () => {
    await pool.end();
    await database.drop();
  });

  const notes = async () => (await pool.query<{ text: string }>('SELECT text FROM notes ORDER BY text')).rows.map((row) => row.text);

  it('commits what the work did when it resolves, and answers its result', async () => {
    const result = await withTransaction(pool, async (client) => {
      await client.query("INSERT INTO notes VALUES ('kept')");
      return 'done';
    });
    expect(result).toBe('done');
    expect(await notes()).toEqual(['kept']);
  });

  it('rolls back and rethrows when the work throws', async () => {
    const failure = new Error('work failed');
    await expect(
      withTransaction(pool, async (client) => {
        await client.query("INSERT INTO notes VALUES ('lost')");
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(await notes()).toEqual(['kept']);
  });

  it('runs read-only at the isolation asked for', async () => {
    const seen = await withTransaction(
      pool,
      async (client) => (await client.query<{ level: string; ro: string }>("SELECT current_setting('transaction_isolation') AS level, current_setting('transaction_read_only') AS ro")).rows[0],
      { isolation: 'REPEATABLE READ', readOnly: true },
    );
    expect(seen).toEqual({ level: 'repeatable read', ro: 'on' });
  });

  it('discards a connection whose rollback failed instead of handing it back to the pool', async () => {
    const admin = new Client({ connectionString: database.url });
    await admin.connect();
    let pid: number | undefined;
    try {
      await expect(
        withTransaction(pool, async (client) => {
          pid = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]?.pid;
          // The server goes away mid-transaction: the rollback cannot be sent either.
          await admin.query('SELECT pg_terminate_backend($1)', [pid]);
          throw new Error('work failed');
        }),
      ).rejects.toThrow('work failed');
    } finally {
      await admin.end();
    }
    // The pool (of one) holds a new connection, not the dead one.
    const next = (await pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]?.pid;
    expect(next).toEqual(expect.any(Number));
    expect(next).not.toBe(pid);
  });
});
