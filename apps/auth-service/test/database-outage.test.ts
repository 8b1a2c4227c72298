import type { Express } from 'express';
import type { Pool, PoolClient } from 'pg';
import request from 'supertest';
import { createPool } from '@custos/service-kit';
import { form, testEnv, tokenFor, type TestEnv } from './helpers';

/**
 * The database out of reach (api.md, "Errors"): the token endpoint answers 503 `temporarily_unavailable` and the
 * client API 503 `service_unavailable`, both with Retry-After, rather than 500. Against real PostgreSQL: the app's
 * pool has one connection, which the test holds, so each request waits out the pool's connection timeout.
 */
const ADMIN = { id: 'root', secret: 'root-secret-0123456789' };
let env: TestEnv;
let pool: Pool;
let app: Express;
let adminToken: string;

beforeAll(async () => {
  env = await testEnv();
  pool = createPool(env.database.url, env.logger, { max: 1, connectionTimeoutMillis: 100 });
  app = await env.app({ pool, config: { bootstrap: { clientId: ADMIN.id, clientSecret: ADMIN.secret }, trustProxy: false }, rateLimit: { limit: 1000 } });
  adminToken = await tokenFor(app, ADMIN.id, ADMIN.secret);
});

afterAll(async () => {
  await pool.end();
  await env.close();
});

async function withPoolBusy(work: () => Promise<void>): Promise<void> {
  const held: PoolClient = await pool.connect();
  try {
    await work();
  } finally {
    held.release();
  }
}

test('the token endpoint answers 503 `temporarily_unavailable` with Retry-After', async () => {
  await withPoolBusy(async () => {
    const answer = await request(app)
      .post('/oauth/token')
      .type('form')
      .send(form({ grant_type: 'client_credentials', client_id: ADMIN.id, client_secret: ADMIN.secret }));
    expect(answer.status).toBe(503);
    expect(answer.body.error).toBe('temporarily_unavailable');
    expect(Number(answer.headers['retry-after'])).toBeGreaterThan(0);
  });
  // Once the database answers again, so does the endpoint.
  expect(await tokenFor(app, ADMIN.id, ADMIN.secret)).toEqual(expect.any(String));
});

test('the client API answers 503 `service_unavailable` with Retry-After, and creates nothing', async () => {
  const before = (await env.pool.query('SELECT id FROM auth.clients ORDER BY id')).rows;
  await withPoolBusy(async () => {
    const listed = await request(app).get('/clients').set('Authorization', `Bearer ${adminToken}`);
    expect(listed.status).toBe(503);
    expect(listed.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(listed.body.code).toBe('service_unavailable');
    expect(Number(listed.headers['retry-after'])).toBeGreaterThan(0);
    const created = await request(app)
      .post('/clients')
      .set('Authorization', `Bearer ${adminToken}`)
      .send({ solutions: ['acme'], scopes: ['event:decide'], description: 'made while the database was away' });
    expect(created.status).toBe(503);
  });
  expect((await env.pool.query('SELECT id FROM auth.clients ORDER BY id')).rows).toEqual(before);
});
