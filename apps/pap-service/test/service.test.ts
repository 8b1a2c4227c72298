import request from 'supertest';
import { createMetrics, createPool } from '@custos/service-kit';
import { unusedDatabaseUrl } from '@custos/test-kit';
import { createApp, SERVICE_NAME } from '../src/app';
import { openapi } from '../src/openapi';
import { policyXml, startHarness, type Harness } from './harness';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ natsState: () => 'connected' });
});
afterAll(async () => {
  await h.close();
});

test('live and ready without a token', async () => {
  expect((await request(h.app).get('/health/live')).status).toBe(200);
  const ready = await request(h.app).get('/health/ready');
  expect(ready.status).toBe(200);
  expect(ready.body).toEqual({ ready: true, database: 'up', nats: 'connected', revision: 0, outboxBacklog: 0 });
});

test('not ready when the database is unreachable, and NATS state is still reported', async () => {
  const pool = createPool(unusedDatabaseUrl('pap_missing').url, h.logger, { connectionTimeoutMillis: 2000 });
  try {
    const app = createApp({ ...h.deps, metrics: createMetrics(SERVICE_NAME, false), pool, natsState: () => 'reconnecting' });
    const ready = await request(app).get('/health/ready');
    expect(ready.status).toBe(503);
    expect(ready.body).toEqual({ ready: false, database: 'down', nats: 'reconnecting' });
    const metrics = await request(app).get('/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.text).toMatch(/^pap_policies(\{[^}]*\})? NaN$/im);
    expect(metrics.text).toMatch(/^pap_policy_revision(\{[^}]*\})? NaN$/im);
  } finally {
    await pool.end();
  }
});

test('metrics count policies, deployed policies, the revision and the outbox backlog', async () => {
  for (const id of ['urn:policy:acme:m1', 'urn:policy:acme:m2']) {
    const res = await request(h.app).post('/ws/policy').set('Authorization', h.bearer()).type('application/xml').send(policyXml(id));
    expect(res.status).toBe(201);
  }
  await request(h.app).post('/ws/policy/urn:policy:acme:m1/deploy').set('Authorization', h.bearer());
  await request(h.app).post('/ws/policy/urn:policy:acme:m2/deploy').set('Authorization', h.bearer());
  await request(h.app).post('/ws/policy/urn:policy:acme:m2/revoke').set('Authorization', h.bearer());
  const res = await request(h.app).get('/metrics');
  expect(res.status).toBe(200);
  const value = (name: string) => Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(res.text)?.[1]);
  expect(value('pap_policies')).toBe(2);
  expect(value('pap_policies_deployed')).toBe(1);
  expect(value('pap_policy_revision')).toBe(3);
  expect(value('pap_outbox_backlog')).toBe(3);
  expect(res.text).not.toContain('<policy');
});

test('the OpenAPI document describes every route the app serves', async () => {
  const res = await request(h.app).get('/openapi.json');
  expect(res.status).toBe(200);
  expect(res.body.openapi).toBe('3.1.0');
  const stack = (h.app as unknown as { router: { stack: Array<{ route?: { path: string; methods: Record<string, boolean> } }> } }).router.stack;
  const served: string[] = [];
  for (const layer of stack) {
    // The method-less catch-all that answers 405 registers every method; skip it.
    if (!layer.route || Object.keys(layer.route.methods).length > 2) continue;
    for (const method of Object.keys(layer.route.methods)) {
      if (method === '_all' || method === 'head') continue;
      served.push(`${method} ${layer.route.path.replace(/:(\w+)/g, '{$1}')}`);
    }
  }
  expect(served).toContain('get /ws/policy/{id}/revoke');
  expect(served.length).toBeGreaterThan(15);
  const documented = Object.entries(openapi.paths).flatMap(([path, methods]) =>
    Object.keys(methods).filter((m) => m !== 'parameters').map((m) => `${m} ${path}`),
  );
  expect([...new Set(served)].sort()).toEqual([...documented].sort());
});

test('the docs page lists the operations', async () => {
  const res = await request(h.app).get('/docs');
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toMatch(/^text\/html/);
  expect(res.text).toContain('/ws/policy/{id}/deploy');
});

test('unknown routes are 404 and wrong methods 405 with Allow', async () => {
  const unknown = await request(h.app).get('/ws/nothing').set('Authorization', h.bearer());
  expect(unknown.status).toBe(404);
  expect(unknown.body.code).toBe('not_found');
  const wrong = await request(h.app).patch('/ws/policy/urn:policy:acme:m1').set('Authorization', h.bearer());
  expect(wrong.status).toBe(405);
  expect(wrong.headers.allow).toBe('GET, HEAD, PUT, DELETE');
  const revoke = await request(h.app).delete('/ws/policy/urn:policy:acme:m1/revoke');
  expect(revoke.status).toBe(405);
  expect(revoke.headers.allow).toBe('GET, HEAD, POST');
});
