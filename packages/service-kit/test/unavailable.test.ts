import { Client, Pool } from 'pg';
import { ERROR_CODES } from '@custos/contracts';
import { createLogger, isDatabaseUnavailable, toProblem } from '@custos/service-kit';
import { createTestDatabase, freePort, waitFor, type TestDatabase } from '@custos/test-kit';

const silent = createLogger('test', 'silent');

/** What a rejected promise rejected with. */
async function failureOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a failure');
}

describe('isDatabaseUnavailable, on error objects', () => {
  const withCode = (code: string, message = 'failed') => Object.assign(new Error(message), { code });

  it.each([
    ['a lost session (class 08)', withCode('08006')],
    ['a terminated backend', withCode('57P01', 'terminating connection due to administrator command')],
    ['a server that is starting', withCode('57P03', 'the database system is starting up')],
    ['a full server', withCode('53300', 'sorry, too many clients already')],
    ['a session on a server that became a standby', withCode('25006', 'cannot execute INSERT in a read-only transaction')],
    ['a multi-host pool that found only a standby', withCode('STANDBY', '127.0.0.1:5433 is a standby (read-only), not the primary')],
    ['a refused connection', withCode('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:1')],
    ['a reset connection', withCode('ECONNRESET', 'read ECONNRESET')],
    ['a connection that ended under a query', new Error('Connection terminated unexpectedly')],
    ['a pool that found no free connection in time', new Error('timeout exceeded when trying to connect')],
    ['refusals of every address of a host', new AggregateError([withCode('ECONNREFUSED'), withCode('ECONNREFUSED')], '')],
    ['a wrapped refusal', new Error('could not load', { cause: withCode('ECONNREFUSED') })],
  ])('says yes for %s', (_what, error) => {
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it.each([
    ['a unique violation', withCode('23505', 'duplicate key value violates unique constraint')],
    ['a syntax error', withCode('42601', 'syntax error at or near "SELEC"')],
    ['a serialization failure', withCode('40001')],
    ['a bug', new TypeError("cannot read properties of undefined (reading 'id')")],
    ['a pool used after it was ended', new Error('Cannot use a pool after calling end on the pool')],
    ['a string', 'ECONNREFUSED'],
    ['nothing', undefined],
  ])('says no for %s', (_what, error) => {
    expect(isDatabaseUnavailable(error)).toBe(false);
  });

  it('follows a cycle of causes no further than a few steps', () => {
    const first = new Error('first');
    const second = new Error('second', { cause: first });
    Object.assign(first, { cause: second });
    expect(isDatabaseUnavailable(first)).toBe(false);
  });
});

describe('isDatabaseUnavailable and toProblem, on what node-postgres raises against a real server', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase('custos_unavailable');
  });

  afterAll(async () => {
    await database.drop();
  });

  it('answers 503 `service_unavailable` with Retry-After when nothing listens at the address', async () => {
    const client = new Client({ connectionString: `postgres://postgres@127.0.0.1:${await freePort()}/custos` });
    const error = await failureOf(client.connect());
    expect(isDatabaseUnavailable(error)).toBe(true);
    const problem = toProblem(error, silent, 'r1');
    expect(problem.status).toBe(503);
    expect(problem.code).toBe(ERROR_CODES.serviceUnavailable);
    expect(Number(problem.headers['Retry-After'])).toBeGreaterThan(0);
    expect(problem.detail).not.toMatch(/ECONNREFUSED|127\.0\.0\.1/);
  });

  it('says yes for a query whose backend is terminated under it, and for the next query on that client', async () => {
    const victim = new Client({ connectionString: database.url });
    const admin = new Client({ connectionString: database.url });
    await victim.connect();
    await admin.connect();
    // The connection's `error` event follows the failed query; without a listener it would be thrown.
    victim.on('error', () => undefined);
    try {
      const pid = (await victim.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]?.pid;
      const sleeping = failureOf(victim.query('SELECT pg_sleep(30)'));
      await waitFor(
        async () => (await admin.query("SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND state = 'active'", [pid])).rowCount === 1,
        { what: 'the query running' },
      );
      await admin.query('SELECT pg_terminate_backend($1)', [pid]);
      expect(isDatabaseUnavailable(await sleeping)).toBe(true);
      expect(isDatabaseUnavailable(await failureOf(victim.query('SELECT 1')))).toBe(true);
    } finally {
      await admin.end();
      await victim.end().catch(() => undefined);
    }
  });

  it('says yes when every connection of the pool stays busy past its connection timeout', async () => {
    const pool = new Pool({ connectionString: database.url, max: 1, connectionTimeoutMillis: 50 });
    const held = await pool.connect();
    try {
      expect(isDatabaseUnavailable(await failureOf(pool.query('SELECT 1')))).toBe(true);
    } finally {
      held.release();
      await pool.end();
    }
  });

  it('leaves a statement the server refuses a 500', async () => {
    const client = new Client({ connectionString: database.url });
    await client.connect();
    try {
      const error = await failureOf(client.query('SELEC 1'));
      expect(isDatabaseUnavailable(error)).toBe(false);
      expect(toProblem(error, silent, 'r2').status).toBe(500);
    } finally {
      await client.end();
    }
  });
});
