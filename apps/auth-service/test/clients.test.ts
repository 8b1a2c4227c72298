import { createPrivateKey } from 'node:crypto';
import type { Express } from 'express';
import jwt from 'jsonwebtoken';
import request from 'supertest';
import { ALL_SCOPES, TOKEN_AUDIENCE, TOKEN_ISSUER } from '@custos/contracts';
import { TestAuthority } from '@custos/test-kit';
import { ClientStore } from '../src/clients/client-store';
import { hashSecret } from '../src/hashing/secrets';
import { basicAuthorization, countRows, form, testEnv, tokenFor, type TestEnv } from './helpers';

const ADMIN = { id: 'root', secret: 'root-secret-0123456789' };
let env: TestEnv;
let app: Express;
let adminToken: string;

async function addClient(id: string, secret: string, scopes: string[], solutions: string[]): Promise<void> {
  await new ClientStore(env.pool).create({ id, secretHash: await hashSecret(secret), scopes, solutions, description: '' });
}

beforeAll(async () => {
  env = await testEnv();
  app = await env.app({ config: { bootstrap: { clientId: ADMIN.id, clientSecret: ADMIN.secret }, trustProxy: false }, rateLimit: { limit: 1000 } });
  adminToken = await tokenFor(app, ADMIN.id, ADMIN.secret);
});

afterAll(async () => {
  await env.close();
});

const auth = (token: string) => ({ Authorization: `Bearer ${token}` });

function expectProblem(response: request.Response, status: number, code: string): void {
  expect({ status: response.status, code: response.body.code }).toEqual({ status, code });
  expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(response.body.type).toBe(`urn:custos:problem:${code}`);
  expect(response.text).not.toMatch(/\bat .+\(.+:\d+:\d+\)/); // no stack trace
}

const create = (body: unknown, token = adminToken) =>
  request(app).post('/clients').set(auth(token)).set('Content-Type', 'application/json').send(JSON.stringify(body));

describe('/clients — lifecycle', () => {
  it('creates a client whose secret works once, lists it without secret, rotates and deletes it', async () => {
    const created = await create({ solutions: ['acme', 'beta'], scopes: ['policy:read', 'event:decide'], description: 'acme pep' });
    expect(created.status).toBe(201);
    expect(created.headers['cache-control']).toBe('no-store');
    const body = created.body;
    expect(Object.keys(body).sort()).toEqual(['client_id', 'client_secret', 'created_at', 'description', 'scopes', 'solutions', 'updated_at']);
    expect(body.client_id).toMatch(/^c_[A-Za-z0-9_-]{22}$/);
    expect(body.client_secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(body).toMatchObject({ solutions: ['acme', 'beta'], scopes: ['event:decide', 'policy:read'], description: 'acme pep' });
    expect(new Date(body.created_at).toISOString()).toBe(body.created_at);
    expect(created.headers.location).toBe(`/clients/${body.client_id}`);
    const id: string = body.client_id;

    // Stored only as a hash.
    const stored = await env.pool.query<{ secret_hash: string }>('SELECT secret_hash FROM auth.clients WHERE id = $1', [id]);
    expect(stored.rows[0]!.secret_hash).toMatch(/^scrypt\$/);
    expect(stored.rows[0]!.secret_hash).not.toContain(body.client_secret);

    const token = await tokenFor(app, id, body.client_secret);
    expect((jwt.decode(token) as jwt.JwtPayload).solutions).toEqual(['acme', 'beta']);

    const listed = await request(app).get('/clients').set(auth(adminToken));
    expect(listed.status).toBe(200);
    const entry = (listed.body as Array<Record<string, unknown>>).find((c) => c.client_id === id);
    expect(entry).toEqual({ ...body, client_secret: undefined });
    expect(JSON.stringify(listed.body)).not.toContain('secret');

    const shown = await request(app).get(created.headers.location!).set(auth(adminToken));
    expect(shown.status).toBe(200);
    expect(shown.body).toEqual(entry);

    const rotated = await request(app).post(`/clients/${id}/secret`).set(auth(adminToken));
    expect(rotated.status).toBe(200);
    expect(rotated.headers['cache-control']).toBe('no-store');
    expect(Object.keys(rotated.body).sort()).toEqual(['client_id', 'client_secret']);
    expect(rotated.body.client_id).toBe(id);
    expect(rotated.body.client_secret).not.toBe(body.client_secret);
    await expect(tokenFor(app, id, body.client_secret)).rejects.toThrow(/401/);
    await expect(tokenFor(app, id, rotated.body.client_secret)).resolves.toMatch(/\./);

    const deleted = await request(app).delete(`/clients/${id}`).set(auth(adminToken));
    expect(deleted.status).toBe(200);
    expect(deleted.headers['content-type']).toMatch(/^application\/json/);
    expect(deleted.body).toBe(true);
    expect((await request(app).delete(`/clients/${id}`).set(auth(adminToken))).body).toBe(false);
    expectProblem(await request(app).get(`/clients/${id}`).set(auth(adminToken)), 404, 'not_found');
    await expect(tokenFor(app, id, rotated.body.client_secret)).rejects.toThrow(/401/);
  });

  it('description is optional; `*` grants every solution', async () => {
    const created = await create({ solutions: ['*'], scopes: ['event:decide'] });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ solutions: ['*'], description: '' });
  });
});

describe('/clients — authorization', () => {
  it('401 without a token, with a bare Bearer challenge', async () => {
    for (const call of [request(app).get('/clients'), request(app).get('/clients/x'), request(app).delete('/clients/x'), request(app).post('/clients/x/secret')]) {
      const response = await call;
      expectProblem(response, 401, 'unauthorized');
      expect(response.headers['www-authenticate']).toMatch(/^Bearer( realm="custos")?$/);
    }
  });

  it('401 invalid_token for garbage, a foreign signer, an expired token, a Basic header', async () => {
    const authority = new TestAuthority();
    const row = await env.pool.query<{ kid: string; private_key: string }>('SELECT kid, private_key FROM auth.signing_keys LIMIT 1');
    const ours = createPrivateKey(row.rows[0]!.private_key);
    const expired = jwt.sign({ scope: 'client:admin', solutions: ['*'] }, ours, {
      algorithm: 'ES256',
      keyid: row.rows[0]!.kid,
      issuer: TOKEN_ISSUER,
      audience: TOKEN_AUDIENCE,
      subject: ADMIN.id,
      expiresIn: -3600,
    });
    const tokens = ['not-a-jwt', authority.mint({ scopes: ['client:admin'] }), authority.mint({ kid: row.rows[0]!.kid }), expired];
    for (const token of tokens) {
      const response = await request(app).get('/clients').set(auth(token));
      expectProblem(response, 401, 'invalid_token');
      expect(response.headers['www-authenticate']).toMatch(/^Bearer .*error="invalid_token"/);
    }
    const basic = await request(app).get('/clients').set('Authorization', basicAuthorization(ADMIN.id, ADMIN.secret));
    expect(basic.status).toBe(401);
    expect(basic.headers['www-authenticate']).toMatch(/^Bearer/);
  });

  it('403 insufficient_scope for a valid token without client:admin (even one narrowed from an admin client)', async () => {
    await addClient('pep-1', 'pep-secret', ['event:decide'], ['acme']);
    const narrowed = await tokenFor(app, ADMIN.id, ADMIN.secret, 'policy:read');
    for (const token of [await tokenFor(app, 'pep-1', 'pep-secret'), narrowed]) {
      const before = await countRows(env.pool, 'auth.clients');
      const responses = [
        await request(app).get('/clients').set(auth(token)),
        await create({ solutions: ['acme'], scopes: ['event:decide'] }, token),
        await request(app).get('/clients/pep-1').set(auth(token)),
        await request(app).delete('/clients/pep-1').set(auth(token)),
        await request(app).post('/clients/pep-1/secret').set(auth(token)),
      ];
      for (const response of responses) {
        expectProblem(response, 403, 'insufficient_scope');
        expect(response.headers['www-authenticate']).toMatch(/error="insufficient_scope"/);
      }
      expect(await countRows(env.pool, 'auth.clients')).toBe(before);
    }
    await expect(tokenFor(app, 'pep-1', 'pep-secret')).resolves.toMatch(/\./);
  });

  it('a deleted administrator loses the admin API at once', async () => {
    await addClient('temp-admin', 'temp-secret', ['client:admin'], ['*']);
    const token = await tokenFor(app, 'temp-admin', 'temp-secret');
    expect((await request(app).get('/clients').set(auth(token))).status).toBe(200);
    expect((await request(app).delete('/clients/temp-admin').set(auth(adminToken))).body).toBe(true);
    expectProblem(await request(app).get('/clients').set(auth(token)), 401, 'invalid_token');
  });

  describe('an administrator bound to some solutions', () => {
    let acmeAdmin: string;
    beforeAll(async () => {
      await addClient('acme-admin', 'acme-admin-secret', ['client:admin', 'event:decide', 'policy:read'], ['acme', 'acme.eu']);
      await addClient('beta-pep', 'beta-secret', ['event:decide'], ['beta']);
      await addClient('mixed-pep', 'mixed-secret', ['event:decide'], ['acme', 'beta']);
      acmeAdmin = await tokenFor(app, 'acme-admin', 'acme-admin-secret');
    });

    it('creates clients within its solutions and scopes only', async () => {
      const ok = await create({ solutions: ['acme.eu'], scopes: ['event:decide', 'policy:read'] }, acmeAdmin);
      expect(ok.status).toBe(201);
      const before = await countRows(env.pool, 'auth.clients');
      for (const solutions of [['beta'], ['acme', 'beta'], ['*']]) {
        expectProblem(await create({ solutions, scopes: ['event:decide'] }, acmeAdmin), 403, 'insufficient_scope');
      }
      const wider = await create({ solutions: ['acme'], scopes: ['policy:write'] }, acmeAdmin);
      expectProblem(wider, 403, 'insufficient_scope');
      expect(wider.body.detail).toContain('`policy:write`');
      expect(await countRows(env.pool, 'auth.clients')).toBe(before);
    });

    it('sees only clients within its solutions; others look missing and stay untouched', async () => {
      const listed = await request(app).get('/clients').set(auth(acmeAdmin));
      const ids = (listed.body as Array<{ client_id: string; solutions: string[] }>).map((c) => c.client_id);
      expect(ids).toContain('acme-admin');
      expect(ids).not.toContain('beta-pep');
      expect(ids).not.toContain('mixed-pep');
      expect(ids).not.toContain(ADMIN.id);
      for (const id of ['beta-pep', 'mixed-pep', ADMIN.id, 'does-not-exist']) {
        expectProblem(await request(app).get(`/clients/${id}`).set(auth(acmeAdmin)), 404, 'not_found');
        expectProblem(await request(app).post(`/clients/${id}/secret`).set(auth(acmeAdmin)), 404, 'not_found');
        expect((await request(app).delete(`/clients/${id}`).set(auth(acmeAdmin))).body).toBe(false);
      }
      await expect(tokenFor(app, 'beta-pep', 'beta-secret')).resolves.toMatch(/\./);
      await expect(tokenFor(app, 'mixed-pep', 'mixed-secret')).resolves.toMatch(/\./);
    });
  });
});

describe('/clients — bad input: a clear problem, nothing stored', () => {
  let before: number;
  let hashes: string;
  const snapshot = async () =>
    JSON.stringify((await env.pool.query('SELECT id, secret_hash, scopes, solutions, updated_at FROM auth.clients ORDER BY id')).rows);

  beforeAll(async () => {
    before = await countRows(env.pool, 'auth.clients');
    hashes = await snapshot();
  });

  afterAll(async () => {
    expect(await countRows(env.pool, 'auth.clients')).toBe(before);
    expect(await snapshot()).toBe(hashes);
  });

  const paths = (response: request.Response) =>
    (response.body.errors as Array<{ path: string; message: string }>).map((e) => `${e.path}: ${e.message}`);

  it('malformed JSON and an empty body', async () => {
    const broken = await request(app).post('/clients').set(auth(adminToken)).set('Content-Type', 'application/json').send('{"solutions": [],\n}');
    expectProblem(broken, 400, 'malformed_json');
    expect(broken.body.errors[0]).toMatchObject({ line: 2, column: 1 });
    const cut = await request(app).post('/clients').set(auth(adminToken)).set('Content-Type', 'application/json').send('{"solutions": [');
    expectProblem(cut, 400, 'malformed_json');
    expectProblem(await request(app).post('/clients').set(auth(adminToken)).set('Content-Type', 'application/json').send(''), 400, 'malformed_json');
  });

  it('wrong types, each with its path', async () => {
    const response = await create({ solutions: 'acme', scopes: [1], description: 7 });
    expectProblem(response, 400, 'invalid_request');
    expect(paths(response)).toEqual(
      expect.arrayContaining(['solutions: must be of type array', 'scopes[0]: must be of type string', 'description: must be of type string']),
    );
    for (const body of [[], 'acme', 42, null]) expectProblem(await create(body), 400, 'invalid_request');
  });

  it('missing fields', async () => {
    const response = await create({});
    expectProblem(response, 400, 'invalid_request');
    expect(paths(response)).toEqual(expect.arrayContaining(['solutions: is required', 'scopes: is required']));
  });

  it('unknown fields', async () => {
    const response = await create({ solutions: ['acme'], scopes: ['event:decide'], client_secret: 'mine', id: 'chosen' });
    expectProblem(response, 400, 'invalid_request');
    expect(paths(response)).toEqual(expect.arrayContaining(['client_secret: is not a known field', 'id: is not a known field']));
  });

  it('bad values: solution names, unknown scopes, duplicates, empty lists, `*` with others, long descriptions', async () => {
    const cases: Array<[unknown, string]> = [
      [{ solutions: ['ACME'], scopes: ['event:decide'] }, 'solutions[0]'],
      [{ solutions: ['ac me'], scopes: ['event:decide'] }, 'solutions[0]'],
      [{ solutions: [''], scopes: ['event:decide'] }, 'solutions[0]'],
      [{ solutions: ['acme'], scopes: ['event:explain'] }, 'scopes[0]'],
      [{ solutions: ['acme', 'acme'], scopes: ['event:decide'] }, 'solutions'],
      [{ solutions: ['acme'], scopes: ['event:decide', 'event:decide'] }, 'scopes'],
      [{ solutions: [], scopes: ['event:decide'] }, 'solutions'],
      [{ solutions: ['acme'], scopes: [] }, 'scopes'],
      [{ solutions: ['*', 'acme'], scopes: ['event:decide'] }, 'solutions'],
      [{ solutions: ['acme'], scopes: ['event:decide'], description: 'x'.repeat(1001) }, 'description'],
    ];
    for (const [body, path] of cases) {
      const response = await create(body);
      expectProblem(response, 400, 'invalid_request');
      expect(response.body.errors.map((e: { path: string }) => e.path)).toContain(path);
    }
  });

  it('415 for another content type or none', async () => {
    const body = JSON.stringify({ solutions: ['acme'], scopes: ['event:decide'] });
    expectProblem(await request(app).post('/clients').set(auth(adminToken)).set('Content-Type', 'text/plain').send(body), 415, 'unsupported_media_type');
    expectProblem(
      await request(app).post('/clients').set(auth(adminToken)).type('form').send(form({ solutions: 'acme' })),
      415,
      'unsupported_media_type',
    );
    expectProblem(await request(app).post('/clients').set(auth(adminToken)).send(Buffer.from(body)), 415, 'unsupported_media_type');
  });

  it('text PostgreSQL cannot store (U+0000, lone surrogates) is a 400, not a database error', async () => {
    for (const description of ['a\\u0000b', 'x\\ud800y']) {
      const response = await request(app)
        .post('/clients')
        .set(auth(adminToken))
        .set('Content-Type', 'application/json')
        .send(`{"solutions":["acme"],"scopes":["event:decide"],"description":"${description}"}`);
      expectProblem(response, 400, 'invalid_request');
      expect(paths(response)).toEqual([expect.stringMatching(/^description: must not contain/)]);
    }
  });

  it('413 for an oversized body', async () => {
    const response = await create({ solutions: ['acme'], scopes: ['event:decide'], description: 'x'.repeat(20 * 1024) });
    expectProblem(response, 413, 'payload_too_large');
  });

  it('401 before the body is even looked at', async () => {
    const response = await request(app).post('/clients').set('Content-Type', 'application/json').send('{not json');
    expectProblem(response, 401, 'unauthorized');
  });

  it('404 for unknown ids and unknown routes', async () => {
    expectProblem(await request(app).get('/clients/c_unknown').set(auth(adminToken)), 404, 'not_found');
    expectProblem(await request(app).post('/clients/c_unknown/secret').set(auth(adminToken)), 404, 'not_found');
    expectProblem(await request(app).get('/clients/a%2Fb').set(auth(adminToken)), 404, 'not_found');
    expectProblem(await request(app).get('/clients/x/y/z').set(auth(adminToken)), 404, 'not_found');
    for (const id of ['root%00', 'root%0D%0A', '%E2%80%AEtoor', 'x'.repeat(300)]) {
      expectProblem(await request(app).get(`/clients/${id}`).set(auth(adminToken)), 404, 'not_found');
      expectProblem(await request(app).post(`/clients/${id}/secret`).set(auth(adminToken)), 404, 'not_found');
      expect((await request(app).delete(`/clients/${id}`).set(auth(adminToken))).body).toBe(false);
    }
    expect((await request(app).delete('/clients/c_unknown').set(auth(adminToken))).body).toBe(false);
  });

  it('405 with Allow for wrong methods', async () => {
    const cases: Array<[request.Test, string]> = [
      [request(app).put('/clients'), 'GET, HEAD, POST'],
      [request(app).delete('/clients'), 'GET, HEAD, POST'],
      [request(app).put('/clients/x'), 'GET, HEAD, DELETE'],
      [request(app).post('/clients/x'), 'GET, HEAD, DELETE'],
      [request(app).get('/clients/x/secret'), 'POST'],
      [request(app).post('/.well-known/jwks.json'), 'GET, HEAD'],
    ];
    for (const [call, allow] of cases) {
      const response = await call.set(auth(adminToken));
      expectProblem(response, 405, 'method_not_allowed');
      expect(response.headers.allow).toBe(allow);
    }
  });
});

describe('scopes a client may be given', () => {
  it('are all the scopes of the contract', async () => {
    const created = await create({ solutions: ['gamma'], scopes: [...ALL_SCOPES].reverse() });
    expect(created.status).toBe(201);
    expect(created.body.scopes).toEqual([...ALL_SCOPES]);
    expect((await request(app).delete(`/clients/${created.body.client_id}`).set(auth(adminToken))).body).toBe(true);
  });
});
