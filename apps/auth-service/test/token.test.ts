import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import jwt from 'jsonwebtoken';
import request from 'supertest';
import { ALL_SCOPES, TOKEN_ALGORITHM, TOKEN_AUDIENCE, TOKEN_ISSUER } from '@custos/contracts';
import { TokenVerifier } from '@custos/service-kit';
import { basicAuthorization, form, testEnv, type TestEnv, type TokenAnswer } from './helpers';
import { acme, createClients, expectOAuthError, GRANT, odd, plus, TOKEN } from './token-clients';

let env: TestEnv;
let app: Express;

beforeAll(async () => {
  env = await testEnv();
  await createClients(env.pool);
  // A high limit: the failures these tests make on purpose must not trip the rate limit here.
  app = await env.app({ rateLimit: { limit: 1000 } });
});

afterAll(async () => {
  await env.close();
});

const post = (body: string, headers: Record<string, string> = {}) => {
  let call = request(app).post(TOKEN).set('Content-Type', 'application/x-www-form-urlencoded');
  for (const [name, value] of Object.entries(headers)) call = call.set(name, value);
  return call.send(body);
};

describe('POST /oauth/token — success', () => {
  it('issues a token to form credentials, with every scope of the client by default', async () => {
    const response = await post(form({ ...GRANT, client_id: acme.id, client_secret: acme.secret }));
    expect(response.status).toBe(200);
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.headers.pragma).toBe('no-cache');
    const body = response.body as TokenAnswer;
    expect(Object.keys(body).sort()).toEqual(['access_token', 'expires_in', 'scope', 'token_type']);
    expect(body.token_type).toBe('Bearer');
    expect(body.expires_in).toBe(3600);
    expect(body.scope).toBe('event:decide policy:read policy:write');
    expect(body.access_token.split('.')).toHaveLength(3);
  });

  it('issues a token to HTTP Basic credentials, undoing their form-urlencoding', async () => {
    const response = await post(form(GRANT), { Authorization: basicAuthorization(odd.id, odd.secret) });
    expect(response.status).toBe(200);
    expect(response.body.scope).toBe('component:read');
    // Not form-urlencoded first: `%&` is no escape, and `+` reads as a space (so `a+b` is `a b`).
    const raw = (id: string, secret: string) => ({ Authorization: `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}` });
    expectOAuthError(await post(form(GRANT), raw(odd.id, odd.secret)), 400, 'invalid_request');
    expectOAuthError(await post(form(GRANT), raw(plus.id, plus.secret)), 401, 'invalid_client');
    expect((await post(form(GRANT), raw(plus.id, 'a%2Bb'))).status).toBe(200);
  });

  it('accepts Basic with the same client_id repeated in the body', async () => {
    const response = await post(form({ ...GRANT, client_id: acme.id }), { Authorization: basicAuthorization(acme.id, acme.secret) });
    expect(response.status).toBe(200);
  });

  it('treats empty fields as absent (RFC 6749 §3.1) and ignores unknown fields', async () => {
    const response = await post(form({ ...GRANT, client_id: acme.id, client_secret: acme.secret, scope: '', audience: 'x' }));
    expect(response.status).toBe(200);
    expect(response.body.scope).toBe(acme.scopes.join(' '));
  });

  it('narrows the token to the requested scopes, in canonical order, without duplicates', async () => {
    const response = await post(
      form({ ...GRANT, client_id: acme.id, client_secret: acme.secret, scope: 'policy:write  event:decide policy:write' }),
    );
    expect(response.status).toBe(200);
    expect(response.body.scope).toBe('event:decide policy:write');
    const claims = jwt.decode(response.body.access_token) as jwt.JwtPayload;
    expect(claims.scope).toBe('event:decide policy:write');
  });
});

describe('POST /oauth/token — the JWT', () => {
  let server: Server;
  let baseUrl: string;

  beforeAll(async () => {
    server = app.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('verifies against the published JWKS and carries the claims of api.md §2.1', async () => {
    const before = Math.floor(Date.now() / 1000);
    const response = await post(form({ ...GRANT, client_id: acme.id, client_secret: acme.secret, scope: 'event:decide' }));
    const after = Math.floor(Date.now() / 1000);
    const token = (response.body as TokenAnswer).access_token;

    const verifier = new TokenVerifier({ jwksUrl: `${baseUrl}/.well-known/jwks.json` });
    const principal = await verifier.authenticate(`Bearer ${token}`);
    expect(principal.clientId).toBe(acme.id);
    expect([...principal.scopes]).toEqual(['event:decide']);
    expect([...principal.solutions]).toEqual(['acme']);

    const jwks = (await (await fetch(`${baseUrl}/.well-known/jwks.json`)).json()) as { keys: Array<{ kid: string }> };
    const decoded = jwt.decode(token, { complete: true })!;
    expect(decoded.header.alg).toBe(TOKEN_ALGORITHM);
    expect(decoded.header.typ).toBe('at+jwt');
    expect(jwks.keys.map((key) => key.kid)).toContain(decoded.header.kid);
    const claims = decoded.payload as jwt.JwtPayload;
    expect(Object.keys(claims).sort()).toEqual(['aud', 'exp', 'iat', 'iss', 'jti', 'nbf', 'scope', 'solutions', 'sub']);
    expect(claims.iss).toBe(TOKEN_ISSUER);
    expect(claims.aud).toBe(TOKEN_AUDIENCE);
    expect(claims.sub).toBe(acme.id);
    expect(claims.iat).toBeGreaterThanOrEqual(before);
    expect(claims.iat).toBeLessThanOrEqual(after);
    expect(claims.nbf).toBe(claims.iat);
    expect(claims.exp).toBe(claims.iat! + 3600);
    expect(claims.jti).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(claims.scope).toBe('event:decide');
    expect(claims.solutions).toEqual(['acme']);
  });

  it('gives every token its own jti', async () => {
    const jtis = new Set<string>();
    for (let i = 0; i < 3; i++) {
      const response = await post(form({ ...GRANT, client_id: acme.id, client_secret: acme.secret }));
      jtis.add((jwt.decode(response.body.access_token) as jwt.JwtPayload).jti!);
    }
    expect(jtis.size).toBe(3);
  });

  it('a tampered token does not verify', async () => {
    const response = await post(form({ ...GRANT, client_id: acme.id, client_secret: acme.secret, scope: 'event:decide' }));
    const [header, payload, signature] = (response.body.access_token as string).split('.');
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString());
    claims.solutions = ['*'];
    const forged = `${header}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${signature}`;
    const verifier = new TokenVerifier({ jwksUrl: `${baseUrl}/.well-known/jwks.json` });
    await expect(verifier.authenticate(`Bearer ${forged}`)).rejects.toMatchObject({ status: 401 });
  });
});

describe('POST /oauth/token — errors', () => {
  const good = { ...GRANT, client_id: acme.id, client_secret: acme.secret };

  it('invalid_request: grant_type missing', async () => {
    expectOAuthError(await post(form({ client_id: acme.id, client_secret: acme.secret })), 400, 'invalid_request');
  });

  it('unsupported_grant_type: any grant but client_credentials', async () => {
    for (const grant of ['password', 'authorization_code', 'refresh_token', 'CLIENT_CREDENTIALS']) {
      expectOAuthError(await post(form({ ...good, grant_type: grant })), 400, 'unsupported_grant_type');
    }
  });

  it('invalid_request: a field given twice', async () => {
    for (const name of ['grant_type', 'client_id', 'client_secret', 'scope']) {
      const body = `${form({ ...good, scope: 'event:decide' })}&${name}=${encodeURIComponent((good as Record<string, string>)[name] ?? 'event:decide')}`;
      expectOAuthError(await post(body), 400, 'invalid_request');
    }
  });

  it('invalid_request: client_id without client_secret and the reverse', async () => {
    expectOAuthError(await post(form({ ...GRANT, client_id: acme.id })), 400, 'invalid_request');
    expectOAuthError(await post(form({ ...GRANT, client_secret: acme.secret })), 400, 'invalid_request');
  });

  it('invalid_request: Basic and form credentials at once, or Basic and a different client_id', async () => {
    const basic = { Authorization: basicAuthorization(acme.id, acme.secret) };
    expectOAuthError(await post(form(good), basic), 400, 'invalid_request');
    expectOAuthError(await post(form({ ...GRANT, client_secret: acme.secret }), basic), 400, 'invalid_request');
    expectOAuthError(await post(form({ ...GRANT, client_id: odd.id }), basic), 400, 'invalid_request');
  });

  it('invalid_request: malformed Basic credentials', async () => {
    for (const header of ['Basic', 'Basic !!!', `Basic ${Buffer.from('no-colon').toString('base64')}`, `Basic ${Buffer.from('%zz:x').toString('base64')}`]) {
      expectOAuthError(await post(form(GRANT), { Authorization: header }), 400, 'invalid_request');
    }
  });

  it('invalid_request: credentials in the URL', async () => {
    const response = await request(app)
      .post(`${TOKEN}?client_secret=${encodeURIComponent(acme.secret)}`)
      .type('form')
      .send(form({ ...GRANT, client_id: acme.id }));
    expectOAuthError(response, 400, 'invalid_request');
  });

  it('invalid_client: no client authentication, with a Basic challenge', async () => {
    const response = await post(form(GRANT));
    expectOAuthError(response, 401, 'invalid_client');
    expect(response.headers['www-authenticate']).toBe('Basic realm="custos"');
  });

  it('invalid_client: an unsupported authentication scheme', async () => {
    const response = await post(form(GRANT), { Authorization: 'Bearer abc.def.ghi' });
    expectOAuthError(response, 401, 'invalid_client');
    expect(response.headers['www-authenticate']).toBe('Basic realm="custos"');
  });

  it('invalid_client: unknown client and wrong secret answer alike, by form and by Basic', async () => {
    const strip = (response: request.Response) => ({
      status: response.status,
      body: response.body,
      challenge: response.headers['www-authenticate'],
      cache: response.headers['cache-control'],
    });
    const unknown = await post(form({ ...GRANT, client_id: 'no-such-client', client_secret: acme.secret }));
    const wrong = await post(form({ ...GRANT, client_id: acme.id, client_secret: `${acme.secret}x` }));
    const unknownBasic = await post(form(GRANT), { Authorization: basicAuthorization('no-such-client', 'x') });
    const wrongBasic = await post(form(GRANT), { Authorization: basicAuthorization(acme.id, 'x') });
    expectOAuthError(unknown, 401, 'invalid_client');
    expect(unknown.headers['www-authenticate']).toBe('Basic realm="custos"');
    expect(strip(wrong)).toEqual(strip(unknown));
    expect(strip(unknownBasic)).toEqual(strip(unknown));
    expect(strip(wrongBasic)).toEqual(strip(unknown));
  });

  it('invalid_scope: a scope the client lacks, an unknown scope, a malformed scope', async () => {
    for (const scope of ['client:admin', 'event:decide client:admin', 'nonsense', 'event:decide "quoted"', '   ']) {
      expectOAuthError(await post(form({ ...good, scope })), 400, 'invalid_scope');
    }
  });

  it('415 in the OAuth form for another content type, or none', async () => {
    const json = await request(app).post(TOKEN).set('Content-Type', 'application/json').send(JSON.stringify(good));
    expectOAuthError(json, 415, 'invalid_request');
    const none = await request(app).post(TOKEN).send(Buffer.from(form(good)));
    expectOAuthError(none, 415, 'invalid_request');
    const latin1 = await post(form(good), { 'Content-Type': 'application/x-www-form-urlencoded; charset=iso-8859-1' });
    expectOAuthError(latin1, 415, 'invalid_request');
  });

  it('413 in the OAuth form for an oversized body', async () => {
    const response = await post(form({ ...good, padding: 'x'.repeat(9 * 1024) }));
    expectOAuthError(response, 413, 'invalid_request');
  });

  it('405 in the OAuth form, with Allow, for other methods', async () => {
    for (const method of ['get', 'put', 'delete', 'patch'] as const) {
      const response = await request(app)[method](TOKEN);
      expectOAuthError(response, 405, 'invalid_request');
      expect(response.headers.allow).toBe('POST');
    }
  });

  it('never writes a secret or a token to the log', async () => {
    const issued = await post(form(good));
    await post(form({ ...good, client_secret: 'wrong-secret-to-be-logged?' }));
    await post(form(GRANT), { Authorization: basicAuthorization(acme.id, acme.secret) });
    const logs = env.logs();
    expect(logs).toContain('client authentication failed');
    expect(logs).not.toContain(acme.secret);
    expect(logs).not.toContain('wrong-secret-to-be-logged');
    expect(logs).not.toContain(issued.body.access_token);
  });

  it('counts token requests by outcome in /metrics', async () => {
    await post(form(good));
    await post(form({ ...good, grant_type: 'password' }));
    const metrics = await request(app).get('/metrics');
    expect(metrics.text).toMatch(/auth_token_requests_total\{outcome="issued"[^}]*\} [1-9]/);
    expect(metrics.text).toMatch(/auth_token_requests_total\{outcome="unsupported_grant_type"[^}]*\} [1-9]/);
  });
});

describe('scopes the token endpoint knows', () => {
  it('are exactly the scopes of the contract', () => {
    expect(ALL_SCOPES).toEqual(['event:decide', 'policy:read', 'policy:write', 'component:read', 'component:write', 'client:admin', 'solution:admin', 'audit:read']);
  });
});

describe('POST /oauth/token — hostile client ids', () => {
  it('a NUL, control characters or an overlong id are an unknown client (401), not a database error', async () => {
    for (const clientId of ['acme-client\u0000', 'a\u0000b', 'acme\r\nclient', 'x'.repeat(5000), 'аcme-client']) {
      const response = await post(form({ ...GRANT, client_id: clientId, client_secret: acme.secret }));
      expectOAuthError(response, 401, 'invalid_client');
      const basic = await post(form(GRANT), { Authorization: basicAuthorization(clientId, acme.secret) });
      expectOAuthError(basic, 401, 'invalid_client');
    }
  });
});
