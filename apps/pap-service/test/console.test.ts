import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Express } from 'express';
import request from 'supertest';
import { CONSOLE_ASSETS_DIR } from '@custos/console';
import { createMetrics, type TrustProxy } from '@custos/service-kit';
import { freePort } from '@custos/test-kit';
import { createApp, SERVICE_NAME } from '../src/app';
import { startHarness, type Harness } from './harness';

let h: Harness;
let app: Express;
let closedPort: number;
beforeAll(async () => {
  h = await startHarness();
  // A port nothing listens on: where a pdp or auth that is down would be.
  closedPort = await freePort();
  const down = `http://127.0.0.1:${closedPort}`;
  app = createApp({ ...h.deps, metrics: createMetrics(SERVICE_NAME, false), console: { assetsDir: CONSOLE_ASSETS_DIR, pdpUrl: down, authUrl: down } });
});
afterAll(async () => {
  await h.close();
});

const builtAssets = () => readdirSync(path.join(CONSOLE_ASSETS_DIR, 'assets'));

describe('the console page', () => {
  test.each(['/console', '/console/'])('%s is the built page, revalidated every time, under a CSP of its own origin', async (url) => {
    const res = await request(app).get(url);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.headers['cache-control']).toBe('no-cache');
    const csp = res.headers['content-security-policy'] as string;
    // The built page, with the one-time style nonce of its CSP handed to the editor in a meta element.
    const nonce = /style-src 'self' 'nonce-([A-Za-z0-9+/=]{24})'/.exec(csp)?.[1];
    expect(nonce).toBeDefined();
    const built = readFileSync(path.join(CONSOLE_ASSETS_DIR, 'index.html'), 'utf8');
    expect(res.text).toBe(built.replace('<head>', `<head>\n    <meta name="csp-nonce" content="${nonce ?? ''}" />`));
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self';");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });

  test('every page gets a nonce of its own, and assets none at all', async () => {
    const first = (await request(app).get('/console')).headers['content-security-policy'] as string;
    const second = (await request(app).get('/console')).headers['content-security-policy'] as string;
    expect(first).not.toBe(second);
    const css = builtAssets().find((name) => name.endsWith('.css'));
    const asset = await request(app).get(`/console/assets/${css ?? ''}`);
    expect(asset.status).toBe(200);
    expect(asset.headers['content-security-policy']).toContain("style-src 'self';");
  });

  test('the page names only scripts and styles that pap serves', async () => {
    const page = (await request(app).get('/console')).text;
    const referenced = [...page.matchAll(/(?:src|href)="(\/console\/assets\/[^"]+)"/g)].map((m) => m[1] ?? '');
    expect(referenced.length).toBeGreaterThanOrEqual(2);
    expect(page).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    for (const asset of referenced) expect(builtAssets()).toContain(path.basename(asset));
  });

  test('hashed assets are cached for a year, with their own type', async () => {
    const script = builtAssets().find((name) => name.endsWith('.js'));
    expect(script).toBeDefined();
    const res = await request(app).get(`/console/assets/${script ?? ''}`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/javascript/);
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(res.headers['content-security-policy']).toBeDefined();
  });

  test('an unknown asset is a 404 problem, and a path out of the folder reaches nothing', async () => {
    const missing = await request(app).get('/console/assets/nothing-here.js');
    expect(missing.status).toBe(404);
    expect(missing.headers['content-type']).toMatch(/^application\/problem\+json/);
    const escape = await request(app).get('/console/assets/..%2f..%2fpackage.json');
    expect(escape.status).toBe(404);
  });
});

describe('the calls the console forwards', () => {
  test('a token request while auth is down: 502 problem naming auth, not a 500', async () => {
    const res = await request(app)
      .post('/console/token')
      .set('Content-Type', 'application/x-www-form-urlencoded')
      .auth('admin', 'secret')
      .send('grant_type=client_credentials');
    expect(res.status).toBe(502);
    expect((res.body as { detail: string }).detail).toContain('auth-service');
  });

  test('a token request that is not a form: 415', async () => {
    const res = await request(app).post('/console/token').set('Content-Type', 'application/json').send('{}');
    expect(res.status).toBe(415);
  });

  test('an explanation needs a token with `event:decide`, before any pdp is asked', async () => {
    const event = { actionId: { scope: 'acme', action: 'show' }, timestamp: 0, parameters: [] };
    expect((await request(app).post('/console/explain').send(event)).status).toBe(401);
    const policyOnly = await request(app).post('/console/explain').set('Authorization', h.bearer({ scopes: ['policy:read'] })).send(event);
    expect(policyOnly.status).toBe(403);
  });

  test('an explanation while the pdp is down: 502 problem naming the pdp', async () => {
    const event = { actionId: { scope: 'acme', action: 'show' }, timestamp: 0, parameters: [] };
    const res = await request(app).post('/console/explain').set('Authorization', h.bearer()).send(event);
    expect(res.status).toBe(502);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect((res.body as { detail: string }).detail).toContain(`127.0.0.1:${closedPort}`);
  });
});

describe('the browser address a console sign-in passes to auth', () => {
  let auth: Server;
  let authUrl = '';
  const seen: Array<string | string[] | undefined> = [];

  beforeAll(async () => {
    // Stands in for auth: records the X-Forwarded-For pap sends and answers like a refused sign-in.
    auth = createServer((req, res) => {
      seen.push(req.headers['x-forwarded-for']);
      req.resume();
      res.writeHead(401, { 'Content-Type': 'application/json' }).end('{"error":"invalid_client"}');
    });
    await new Promise<void>((resolve) => auth.listen(0, '127.0.0.1', resolve));
    authUrl = `http://127.0.0.1:${(auth.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => auth.close(() => resolve()));
  });

  const appTrusting = (trustProxy: TrustProxy | undefined) =>
    createApp({
      ...h.deps,
      metrics: createMetrics(SERVICE_NAME, false),
      console: { assetsDir: CONSOLE_ASSETS_DIR, pdpUrl: authUrl, authUrl },
      ...(trustProxy === undefined ? {} : { trustProxy }),
    });
  const signIn = async (target: Express, forwardedFor: string) => {
    const before = seen.length;
    const res = await request(target)
      .post('/console/token')
      .set('Content-Type', 'application/x-www-form-urlencoded')
      .set('X-Forwarded-For', forwardedFor)
      .auth('someone', 'wrong')
      .send('grant_type=client_credentials');
    expect(res.status).toBe(401);
    expect(seen).toHaveLength(before + 1);
    return seen[before];
  };

  test('by default the socket address, whatever the browser wrote in X-Forwarded-For', async () => {
    expect(await signIn(appTrusting(undefined), '203.0.113.9')).toMatch(/^(::ffff:)?127\.0\.0\.1$/);
  });

  test('behind a trusted proxy, the address that proxy names, and only that one', async () => {
    // A browser's own entry comes first, the proxy appends the address it saw: pap takes the proxy's.
    expect(await signIn(appTrusting('loopback'), '198.51.100.66, 203.0.113.9')).toBe('203.0.113.9');
    // One trusted hop: the last entry, never an earlier one the browser wrote.
    expect(await signIn(appTrusting(1), '10.0.0.5, 192.0.2.44')).toBe('192.0.2.44');
  });

  test('an invalid PAP_TRUST_PROXY stops the app from being made', () => {
    expect(() => appTrusting('not an address')).toThrow(/PAP_TRUST_PROXY is not valid/);
  });
});
