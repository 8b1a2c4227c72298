import request from 'supertest';
import { Client } from 'pg';
import { ERROR_CODES, PROBLEM_CONTENT_TYPE } from '@custos/contracts';
import { createMetrics, createPool } from '@custos/service-kit';
import { freePort, waitFor } from '@custos/test-kit';
import { createApp, SERVICE_NAME } from '../src/app';
import { dump, policyXml, startHarness, type Harness } from './harness';

/**
 * PostgreSQL out of reach (api.md §5): every route that needs it answers 503 `service_unavailable` with Retry-After,
 * not 500, and a change whose connection is lost stores nothing. Against a real server that goes away.
 */
const APPLICATION_NAME = 'pap-outage-test';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ pool: { max: 20, application_name: APPLICATION_NAME } });
});
afterAll(async () => {
  await h.close();
});

const expectUnavailable = (answer: request.Response) => {
  expect(answer.status).toBe(503);
  expect(answer.headers['content-type']).toContain(PROBLEM_CONTENT_TYPE);
  expect(answer.body).toMatchObject({ status: 503, code: ERROR_CODES.serviceUnavailable });
  expect(Number(answer.headers['retry-after'])).toBeGreaterThan(0);
  // Nothing of the driver's error (addresses, ports, statements) reaches the client.
  expect(JSON.stringify(answer.body)).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|terminat|pap\./i);
};

test('a deploy whose connection is terminated inside its transaction answers 503 and stores nothing', async () => {
  const id = 'urn:policy:acme:cut-off';
  const added = await request(h.app).post('/ws/policy').set('Authorization', h.bearer()).type('application/xml').send(policyXml(id));
  expect(added.status).toBe(201);
  const before = await dump(h.pool);

  // Holding the revision row makes the deploy wait inside its transaction after it has marked the policy deployed.
  const locker = new Client({ connectionString: h.db.url });
  await locker.connect();
  try {
    await locker.query('BEGIN');
    await locker.query('SELECT revision FROM pap.state FOR UPDATE');
    const deploying = request(h.app).post(`/ws/policy/${id}/deploy`).set('Authorization', h.bearer()).then((answer) => answer);
    const waiting = await waitFor(
      async () =>
        (
          await locker.query<{ pid: number }>(
            `SELECT pid FROM pg_stat_activity
              WHERE datname = current_database() AND application_name = $1 AND wait_event_type = 'Lock'`,
            [APPLICATION_NAME],
          )
        ).rows[0],
      { what: 'the deploy waiting for the revision row' },
    );
    // What a PostgreSQL restart or failover does to the connection.
    await locker.query('SELECT pg_terminate_backend($1)', [waiting.pid]);
    expectUnavailable(await deploying);
    await locker.query('ROLLBACK');
  } finally {
    await locker.end();
  }

  expect(await dump(h.pool)).toEqual(before);
  // The pool replaced the lost connection: the same deploy succeeds once the database is back.
  const again = await request(h.app).post(`/ws/policy/${id}/deploy`).set('Authorization', h.bearer());
  expect(again.status).toBe(200);
  expect(again.body).toBe(true);
});

test('with nothing listening at the database address, reads and writes answer 503 and readiness says why', async () => {
  const port = await freePort();
  const pool = createPool(`postgres://postgres@127.0.0.1:${port}/custos`, h.logger);
  try {
    const app = createApp({ ...h.deps, pool, metrics: createMetrics(SERVICE_NAME, false) });
    const auth = h.bearer();
    expectUnavailable(await request(app).get('/ws/policy-ids').set('Authorization', auth));
    expectUnavailable(await request(app).get('/ws/timer-ids/deployed').set('Authorization', auth));
    expectUnavailable(await request(app).get('/ws/component?type=PIP').set('Authorization', auth));
    expectUnavailable(await request(app).post('/ws/policy').set('Authorization', auth).type('application/xml').send(policyXml('urn:policy:acme:new')));
    expectUnavailable(await request(app).post('/ws/policy/urn:policy:acme:new/deploy').set('Authorization', auth));
    expectUnavailable(await request(app).delete('/ws/policy/urn:policy:acme:new').set('Authorization', auth));

    const ready = await request(app).get('/health/ready');
    expect(ready.status).toBe(503);
    expect(ready.body).toMatchObject({ ready: false, database: 'down' });
  } finally {
    await pool.end();
  }
});

test('a pool whose every connection stays busy past its timeout answers 503, and a client mistake still answers 400', async () => {
  const pool = createPool(h.db.url, h.logger, { max: 1, connectionTimeoutMillis: 50 });
  const held = await pool.connect();
  try {
    const app = createApp({ ...h.deps, pool, metrics: createMetrics(SERVICE_NAME, false) });
    expectUnavailable(await request(app).get('/ws/policy-ids').set('Authorization', h.bearer()));
    const malformed = await request(app).post('/ws/policy').set('Authorization', h.bearer()).type('application/xml').send('<policy');
    expect(malformed.status).toBe(400);
  } finally {
    held.release();
    await pool.end();
  }
});
