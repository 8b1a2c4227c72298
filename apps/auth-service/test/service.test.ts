import type { Express } from 'express';
import request from 'supertest';
import { createPool } from '@custos/service-kit';
import { openapi } from '../src/openapi';
import { testEnv, type TestEnv } from './helpers';

let env: TestEnv;
let app: Express;

beforeAll(async () => {
  env = await testEnv();
  app = await env.app();
});

afterAll(async () => {
  await env.close();
});

interface Layer {
  route?: { path: string; methods: Record<string, boolean> };
}

/** Every path and method the app registered (the catch-all that answers 405 is not an operation). */
function registeredOperations(express: Express): string[] {
  const stack = (express as unknown as { router: { stack: Layer[] } }).router.stack;
  const operations: string[] = [];
  for (const layer of stack) {
    if (!layer.route) continue;
    const methods = Object.keys(layer.route.methods);
    if (methods.length > 5) continue;
    const path = layer.route.path.replace(/:(\w+)/g, '{$1}');
    for (const method of methods) operations.push(`${method.toUpperCase()} ${path}`);
  }
  return operations.sort();
}

function documentedOperations(): string[] {
  const operations: string[] = [];
  for (const [path, item] of Object.entries(openapi.paths)) {
    for (const method of Object.keys(item)) if (method !== 'parameters') operations.push(`${method.toUpperCase()} ${path}`);
  }
  return operations.sort();
}

describe('operations endpoints', () => {
  it('live and ready', async () => {
    expect((await request(app).get('/health/live')).body).toEqual({ status: 'live' });
    const ready = await request(app).get('/health/ready');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ ready: true, database: true, signingKey: true });
  });

  it('not ready when the database cannot be reached', async () => {
    const pool = createPool(env.database.url, env.logger);
    const lonely = await env.app({ pool });
    await pool.end();
    const ready = await request(lonely).get('/health/ready');
    expect(ready.status).toBe(503);
    expect(ready.body).toEqual({ ready: false, database: false, signingKey: true });
  });

  it('metrics in the Prometheus text format', async () => {
    await request(app).get('/health/live');
    const metrics = await request(app).get('/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.headers['content-type']).toMatch(/^text\/plain/);
    expect(metrics.text).toMatch(/http_requests_total\{[^}]*route="\/health\/live"[^}]*\} \d+/);
  });

  it('an OpenAPI 3.1 document of exactly the operations the service serves', async () => {
    const served = await request(app).get('/openapi.json');
    expect(served.status).toBe(200);
    expect(served.body.openapi).toBe('3.1.0');
    expect(served.body).toEqual(JSON.parse(JSON.stringify(openapi)));
    const registered = registeredOperations(app);
    expect(registered).toEqual(
      expect.arrayContaining(['POST /oauth/token', 'GET /.well-known/jwks.json', 'GET /clients', 'POST /clients', 'GET /clients/{id}', 'DELETE /clients/{id}', 'POST /clients/{id}/secret']),
    );
    expect(documentedOperations()).toEqual(registered);
  });

  it('every $ref in the document resolves', () => {
    const text = JSON.stringify(openapi);
    const refs = [...text.matchAll(/"\$ref":"#\/([^"]+)"/g)].map((match) => match[1]!);
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of refs) {
      const target = ref.split('/').reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], openapi);
      expect({ ref, found: target !== undefined }).toEqual({ ref, found: true });
    }
  });

  it('a docs page listing the operations', async () => {
    const docs = await request(app).get('/docs');
    expect(docs.status).toBe(200);
    expect(docs.headers['content-type']).toMatch(/^text\/html/);
    for (const operation of ['POST /oauth/token', 'GET /.well-known/jwks.json', 'POST /clients/{id}/secret']) expect(docs.text).toContain(operation);
  });

  it('unknown routes are 404 problems', async () => {
    const response = await request(app).get('/oauth/authorize');
    expect(response.status).toBe(404);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.body.code).toBe('not_found');
  });
});
