import { createPublicKey } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { createLogger, createMetrics, createServiceApp, HttpProblem, JwksClient, jsonBody, listen, MAX_LISTED_ERRORS, TokenVerifier, unstorableStrings } from '@custos/service-kit';
import { TestAuthority } from '@custos/test-kit';

describe('unstorableStrings', () => {
  it('locates U+0000 and lone surrogates in values and keys', () => {
    expect(unstorableStrings({ a: 'fine', b: ['x', 'a\u0000b'], c: { d: '\ud800' } })).toEqual([
      { path: 'b[1]', message: 'must not contain the character U+0000' },
      { path: 'c.d', message: expect.stringMatching(/lone surrogate/) },
    ]);
    expect(unstorableStrings({ 'k\u0000': 1 })).toEqual([{ path: '(key 0)', message: 'must not contain the character U+0000' }]);
    expect(unstorableStrings('\udc00')).toEqual([{ path: '(body)', message: expect.stringMatching(/lone surrogate/) }]);
  });

  it('accepts paired surrogates and every other character', () => {
    expect(unstorableStrings({ emoji: '😀', rtl: '\u202e', zw: '\u200b', ctl: '\u0001\u001f' })).toEqual([]);
  });

  it('walks 100,000 levels without recursion and stops after `max` errors', () => {
    const deep = JSON.parse(`${'['.repeat(100_000)}"\\u0000"${']'.repeat(100_000)}`) as unknown;
    expect(unstorableStrings(deep)).toHaveLength(1);
    expect(unstorableStrings(Array.from({ length: 100 }, () => '\u0000'), 5)).toHaveLength(5);
  });
});

describe('jsonBody refuses text PostgreSQL cannot store', () => {
  const kit = createServiceApp({
    service: 'test',
    logger: createLogger('test', 'silent'),
    metrics: createMetrics('test', false),
    openapi: {},
    readiness: () => ({ ready: true }),
  });
  let reached = 0;
  kit.route('/store', { post: [jsonBody(1024), (req, res) => void (reached++, res.json(req.body))] });
  const app = kit.finish();

  it('400 with the path, before the handler runs', async () => {
    for (const text of ['{"name":"a\\u0000b"}', '{"list":["\\ud800"]}']) {
      const response = await request(app).post('/store').set('Content-Type', 'application/json').send(text);
      expect(response.status).toBe(400);
      expect(response.body.code).toBe('invalid_request');
      expect(response.body.errors[0].path).toMatch(/^(name|list\[0\])$/);
    }
    expect(reached).toBe(0);
    const fine = await request(app).post('/store').set('Content-Type', 'application/json').send('{"name":"\\u00e9\\ud83d\\ude00"}');
    expect(fine.status).toBe(200);
    expect(reached).toBe(1);
  });
});

describe('listen answers what node cannot parse as problem+json', () => {
  let server: Server;
  let port: number;

  beforeAll(async () => {
    server = createServer((_req, res) => res.end('ok'));
    await listen(server, 0, '127.0.0.1');
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const raw = (text: string) =>
    new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1');
      let answer = '';
      socket.on('data', (chunk) => (answer += chunk.toString()));
      socket.on('end', () => resolve(answer));
      socket.on('error', reject);
      socket.write(text);
    });

  it('a CR inside a header value (header injection) is a 400 problem', async () => {
    const answer = await raw('GET / HTTP/1.1\r\nHost: x\r\nX-Request-Id: a\rSet-Cookie: owned=1\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(answer).toContain('Content-Type: application/problem+json');
    expect(answer).not.toMatch(/Set-Cookie/i);
    const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));
    expect(body).toMatchObject({ status: 400, code: 'invalid_request' });
  });

  it('oversized headers are a 431 problem', async () => {
    const answer = await raw(`GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(answer).toMatch(/^HTTP\/1\.1 431 /);
    expect(answer).toContain('application/problem+json');
  });

  it('valid requests are untouched', async () => {
    expect(await raw('GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')).toMatch(/^HTTP\/1\.1 200 OK[\s\S]*ok$/);
  });
});

describe('JwksClient: cached keys have a maximum age', () => {
  const authority = new TestAuthority();
  beforeAll(() => authority.start());
  afterAll(() => authority.stop());

  it('serves a known key, and refreshes the set in the background once it is older than maxAgeMs', async () => {
    let published = true;
    const fetchImpl: typeof fetch = async (url, init) => {
      const response = await fetch(url, init);
      const body = (await response.json()) as { keys: unknown[] };
      return new Response(JSON.stringify({ keys: published ? body.keys : [] }), { status: 200 });
    };
    const client = new JwksClient({ url: authority.jwksUrl, fetchImpl, minRefetchIntervalMs: 0, maxAgeMs: 30_000 });
    expect(await client.key(authority.kid)).toBeDefined();
    const fetches = authority.jwksFetches;
    expect(await client.key(authority.kid)).toBeDefined();
    expect(authority.jwksFetches).toBe(fetches); // fresh: no fetch

    published = false; // the auth service withdrew the key
    const now = Date.now();
    const clock = jest.spyOn(Date, 'now').mockReturnValue(now + 60_000);
    // Stale: still served once while the refresh runs, then gone.
    expect(await client.key(authority.kid)).toBeDefined();
    await client.refresh();
    expect(client.cached(authority.kid)).toBeUndefined();
    expect(await client.key(authority.kid)).toBeUndefined();
    clock.mockRestore();
  });
});

describe('problem answers stay bounded', () => {
  it('lists at most MAX_LISTED_ERRORS errors and says how many more there are', () => {
    const errors = Array.from({ length: 250 }, (_, index) => ({ message: `problem ${index}`, path: `p[${index}]` }));
    const body = new HttpProblem(400, 'invalid_request', 'the request is not valid: 250 problems', errors).toProblem();
    expect(body.errors).toHaveLength(MAX_LISTED_ERRORS + 1);
    expect(body.errors![MAX_LISTED_ERRORS - 1]).toEqual({ message: `problem ${MAX_LISTED_ERRORS - 1}`, path: `p[${MAX_LISTED_ERRORS - 1}]` });
    expect(body.errors![MAX_LISTED_ERRORS]).toEqual({ message: `and ${250 - MAX_LISTED_ERRORS} more problems, not listed` });
    expect(new HttpProblem(400, 'x', 'y', errors.slice(0, MAX_LISTED_ERRORS)).toProblem().errors).toHaveLength(MAX_LISTED_ERRORS);
  });
});

describe('TokenVerifier re-checks cached tokens', () => {
  it('a token verified before its key was withdrawn is refused once its cache entry lapses', async () => {
    const authority = new TestAuthority();
    const publicKey = createPublicKey(authority.publicKeyPem());
    let published = true;
    const verifier = new TokenVerifier({ keys: { key: async (kid) => (published && kid === authority.kid ? publicKey : undefined) }, cacheTtlMs: 60_000 });
    const token = authority.mint({ expiresInSeconds: 3600 });
    expect((await verifier.authenticate(`Bearer ${token}`)).clientId).toBe('test-client');
    published = false;
    // Still inside the TTL: served from the cache (no key lookup).
    expect((await verifier.authenticate(`Bearer ${token}`)).clientId).toBe('test-client');
    const now = Date.now();
    const clock = jest.spyOn(Date, 'now').mockReturnValue(now + 61_000);
    try {
      await expect(verifier.authenticate(`Bearer ${token}`)).rejects.toMatchObject({ status: 401, detail: expect.stringMatching(/unknown signing key/) });
    } finally {
      clock.mockRestore();
    }
  });
});
