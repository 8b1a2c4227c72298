import { Writable } from 'node:stream';
import { Client } from 'pg';
import { createLogger, createPool, databaseHosts, primaryUrl } from '@custos/service-kit';
import { createTestDatabase, freePort, startPostgresRelay, waitFor, type TestDatabase } from '@custos/test-kit';

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

describe('createPool with several servers (DATABASE_URL in libpq multi-host form)', () => {
  let database: TestDatabase;
  const logger = createLogger('test', 'silent');

  beforeAll(async () => {
    database = await createTestDatabase('custos_pool_hosts');
  });

  afterAll(async () => {
    await database.drop();
  });

  /** The test database's URL with `hosts` in place of its one host. */
  const naming = (hosts: string[]) => {
    const url = new URL(database.url);
    return `${url.protocol}//${url.username ? `${url.username}@` : ''}${hosts.join(',')}${url.pathname}?target_session_attrs=read-write`;
  };

  it('splits a multi-host URL into one URL per host, without target_session_attrs', () => {
    expect(databaseHosts('postgres://u:p@a:5432,b:5433/db?target_session_attrs=read-write&application_name=x')).toEqual({
      urls: ['postgres://u:p@a:5432/db?application_name=x', 'postgres://u:p@b:5433/db?application_name=x'],
      multiHost: true,
    });
    expect(databaseHosts('postgres://postgres@127.0.0.1:5432/custos')).toEqual({ urls: ['postgres://postgres@127.0.0.1:5432/custos'], multiHost: false });
  });

  it('skips a server that is down and answers from the next one, the first query included', async () => {
    const closed = await freePort();
    const server = new URL(database.url).host;
    const pool = createPool(naming([`127.0.0.1:${closed}`, server]), logger);
    try {
      expect((await pool.query<{ port: number }>('SELECT current_setting($1)::int AS port', ['port'])).rows[0]?.port).toBe(Number(new URL(database.url).port || 5432));
      // And it stays there: the next checkouts need no search.
      for (let n = 0; n < 3; n++) expect((await pool.query<{ one: number }>('SELECT 1 AS one')).rows[0]?.one).toBe(1);
      await expect(primaryUrl(naming([`127.0.0.1:${closed}`, server]))).resolves.toBe(`${database.url.split('?')[0]}`);
    } finally {
      await pool.end();
    }
  });

  // Issue 23: every new connection is asked whether it reached the primary before the pool has it. A server going away
  // during that question (a reset, or silence until the pool's connection timeout cuts the socket) made the client
  // emit `error` with no listener, which ended the process; and a search that asked a silent server waited forever.
  it.each(['shutdown', 'reset', 'silence'] as const)('moves on to the next server when the current one goes away (%s) as a new connection asks it', async (how) => {
    const direct = new URL(database.url);
    const relay = await startPostgresRelay({ host: direct.hostname, port: Number(direct.port || 5432) });
    const lines: string[] = [];
    const logged = createLogger('test', 'warn', new Writable({ write: (chunk: Buffer, _e, done) => (lines.push(chunk.toString()), done()) }));
    // Connections are not kept idle: the checkout after the loss makes a new one.
    const pool = createPool(naming([`127.0.0.1:${relay.port}`, direct.host]), logged, { connectionTimeoutMillis: 1000, idleTimeoutMillis: 1 });
    const port = async () => (await pool.query<{ port: number }>('SELECT inet_client_port() AS port')).rows[0]?.port;
    try {
      await port();
      expect(relay.lostAtFirstQuery()).toBe(0);
      await waitFor(() => pool.totalCount === 0, { what: 'the idle connection closed' });
      relay.fail(how);
      // The new connection is lost at its question, the search skips the relay (lost again) and the checkout is
      // answered by the next server.
      await expect(port()).resolves.toEqual(expect.any(Number));
      expect(relay.lostAtFirstQuery()).toBeGreaterThanOrEqual(2);
      expect(lines.join('')).toMatch(/database primary moved/);
      const search = Date.now();
      await expect(primaryUrl(naming([`127.0.0.1:${relay.port}`, direct.host]))).resolves.toBe(database.url.split('?')[0]);
      // Bounded by the question's timeout (2 s by default), whatever the lost server does.
      expect(Date.now() - search).toBeLessThan(10_000);
    } finally {
      await pool.end();
      await relay.close();
    }
  }, 30_000);

  it('fails a checkout, with the cause, when no server is there', async () => {
    const pool = createPool(naming([`127.0.0.1:${await freePort()}`, `127.0.0.1:${await freePort()}`]), logger, { connectionTimeoutMillis: 1000 });
    try {
      await expect(pool.query('SELECT 1')).rejects.toMatchObject({ code: 'ECONNREFUSED' });
      // At startup the reason reads as such (nothing listens), not as a generic failure.
      await expect(primaryUrl(naming([`127.0.0.1:${await freePort()}`]))).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    } finally {
      await pool.end();
    }
  });
});
