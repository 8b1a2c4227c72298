import type { Express } from 'express';
import jwt from 'jsonwebtoken';
import request from 'supertest';
import { parseRevocationDocument, revocationDigest, type RevocationEntry } from '@custos/service-kit';
import { ClientStore } from '../src/clients/client-store';
import { hashSecret } from '../src/hashing/secrets';
import { TOKEN_LIFETIME_SECONDS } from '../src/oauth/access-token';
import type { RevocationFeed } from '../src/revocation/feed';
import { REVOCATION_MARGIN_SECONDS } from '../src/revocation/revocation-store';
import { basicAuthorization, form, testEnv, tokenFor, type TestEnv } from './helpers';

const ADMIN = { id: 'root', secret: 'root-secret-0123456789' };
const PEP = { id: 'pep-1', secret: 'pep-secret-0123456789' };
const OTHER = { id: 'pep-2', secret: 'pep2-secret-0123456789' };
let env: TestEnv;
let app: Express;
let adminToken: string;
const published: RevocationEntry[][] = [];
const feed: RevocationFeed = { publish: (entries) => void published.push([...entries]), close: async () => undefined };

beforeAll(async () => {
  env = await testEnv();
  const store = new ClientStore(env.pool);
  for (const client of [PEP, OTHER]) {
    await store.create({ id: client.id, secretHash: await hashSecret(client.secret), scopes: ['event:decide', 'client:admin'], solutions: ['acme'], description: '' });
  }
  app = await env.app({
    config: { bootstrap: { clientId: ADMIN.id, clientSecret: ADMIN.secret }, trustProxy: false },
    rateLimit: { limit: 1000 },
    revocationFeed: feed,
  });
  adminToken = await tokenFor(app, ADMIN.id, ADMIN.secret);
});

afterAll(async () => {
  await env.close();
});

const claims = (token: string) => jwt.decode(token) as { jti: string; iat: number; exp: number; sub: string };
const revocations = async () => {
  const answer = await request(app).get('/oauth/revocations');
  expect(answer.status).toBe(200);
  return parseRevocationDocument(answer.body);
};
const revoke = (fields: Record<string, string>, headers: Record<string, string> = {}) =>
  request(app).post('/oauth/revoke').type('form').set(headers).send(form(fields));
const adminCall = (token: string) => request(app).get('/clients').set('Authorization', `Bearer ${token}`);

describe('POST /oauth/revoke (RFC 7009)', () => {
  it('revokes one token of the calling client: it lands on the list by digest and is published; another token stays', async () => {
    const token = await tokenFor(app, PEP.id, PEP.secret);
    const kept = await tokenFor(app, PEP.id, PEP.secret);
    const answer = await revoke({ token, token_type_hint: 'access_token' }, { Authorization: basicAuthorization(PEP.id, PEP.secret) });
    expect(answer.status).toBe(200);
    expect(answer.text).toBe('');
    expect(answer.headers['cache-control']).toBe('no-store');

    const expected: RevocationEntry = { type: 'jti', id: revocationDigest(claims(token).jti), expiresAt: claims(token).exp + REVOCATION_MARGIN_SECONDS };
    expect(await revocations()).toContainEqual(expected);
    expect(published).toContainEqual([expected]);
    expect((await adminCall(token)).status).toBe(401);
    expect((await adminCall(kept)).status).toBe(200);
  });

  it('answers 200 and changes nothing for an unknown token, a forged one, or a token of another client', async () => {
    const before = await revocations();
    const others = await tokenFor(app, OTHER.id, OTHER.secret);
    const forged = jwt.sign({ jti: 'forged' }, 'not-our-key', { algorithm: 'HS256' });
    for (const token of ['not-a-token', forged, others]) {
      expect((await revoke({ token, client_id: PEP.id, client_secret: PEP.secret })).status).toBe(200);
    }
    expect(await revocations()).toEqual(before);
    expect((await adminCall(others)).status).toBe(200);
  });

  it('requires client authentication and a token, in the OAuth error form', async () => {
    const token = await tokenFor(app, PEP.id, PEP.secret);
    const wrong = await revoke({ token, client_id: PEP.id, client_secret: 'wrong' });
    expect({ status: wrong.status, error: wrong.body.error }).toEqual({ status: 401, error: 'invalid_client' });
    const anonymous = await revoke({ token });
    expect({ status: anonymous.status, error: anonymous.body.error }).toEqual({ status: 401, error: 'invalid_client' });
    const missing = await revoke({ client_id: PEP.id, client_secret: PEP.secret });
    expect({ status: missing.status, error: missing.body.error }).toEqual({ status: 400, error: 'invalid_request' });
    const twice = await request(app).post('/oauth/revoke').type('form').send(`token=a&token=b&client_id=${PEP.id}&client_secret=${PEP.secret}`);
    expect({ status: twice.status, error: twice.body.error }).toEqual({ status: 400, error: 'invalid_request' });
    expect((await adminCall(token)).status).toBe(200);
  });
});

describe('revoking every token of a client', () => {
  it('rotating a secret with revoke_tokens refuses the tokens issued before, and not those issued after, even in the same second', async () => {
    const client = { id: 'rotated', secret: 'rotated-secret-0123456789' };
    await new ClientStore(env.pool).create({ id: client.id, secretHash: await hashSecret(client.secret), scopes: ['client:admin'], solutions: ['acme'], description: '' });
    const before = await tokenFor(app, client.id, client.secret);
    const rotated = await request(app)
      .post(`/clients/${client.id}/secret`)
      .set('Authorization', `Bearer ${adminToken}`)
      .type('application/json')
      .send(JSON.stringify({ revoke_tokens: true }));
    expect(rotated.status).toBe(200);
    const after = await tokenFor(app, client.id, rotated.body.client_secret as string);

    const entry = (await revocations()).find((e) => e.type === 'sub' && e.id === revocationDigest(client.id));
    expect(entry?.notAfter).toBeGreaterThanOrEqual(claims(before).iat);
    expect(entry?.expiresAt).toBe((entry?.notAfter ?? 0) + TOKEN_LIFETIME_SECONDS + REVOCATION_MARGIN_SECONDS);
    expect(claims(after).iat).toBeGreaterThan(entry?.notAfter ?? Infinity);
    expect((await adminCall(before)).status).toBe(401);
    expect((await adminCall(after)).status).toBe(200);
  });

  it('rotating without revoke_tokens (no body at all) leaves the tokens alone; bad options are a 400 that rotates nothing', async () => {
    const token = await tokenFor(app, OTHER.id, OTHER.secret);
    const bad = await request(app).post(`/clients/${OTHER.id}/secret`).set('Authorization', `Bearer ${adminToken}`).type('application/json').send('{"revoke_tokens":"yes"}');
    expect(bad.status).toBe(400);
    await expect(tokenFor(app, OTHER.id, OTHER.secret)).resolves.toMatch(/\./);
    const plain = await request(app).post(`/clients/${OTHER.id}/secret`).set('Authorization', `Bearer ${adminToken}`);
    expect(plain.status).toBe(200);
    expect((await adminCall(token)).status).toBe(200);
    expect((await revocations()).some((e) => e.id === revocationDigest(OTHER.id))).toBe(false);
  });

  it('deleting a client revokes its tokens and publishes it; the public list names it only by digest', async () => {
    const count = published.length;
    const deleted = await request(app).delete(`/clients/${PEP.id}`).set('Authorization', `Bearer ${adminToken}`);
    expect(deleted.body).toBe(true);
    const list = await request(app).get('/oauth/revocations');
    expect(list.text).not.toContain(PEP.id);
    expect(parseRevocationDocument(list.body)).toContainEqual(expect.objectContaining({ type: 'sub', id: revocationDigest(PEP.id) }));
    expect(published.slice(count)).toEqual([[expect.objectContaining({ type: 'sub', id: revocationDigest(PEP.id) })]]);
  });
});

describe('GET /oauth/revocations', () => {
  it('is public, not cached without revalidation, and answers 304 to its own ETag', async () => {
    const first = await request(app).get('/oauth/revocations');
    expect(first.headers['cache-control']).toBe('no-cache');
    const etag = first.headers.etag;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect((await request(app).get('/oauth/revocations').set('If-None-Match', etag ?? '')).status).toBe(304);
  });

  it('drops entries whose tokens have all expired', async () => {
    await env.pool.query("INSERT INTO auth.revocations (type, id, expires_at) VALUES ('jti', $1, $2)", [revocationDigest('long-gone'), Math.floor(Date.now() / 1000) - 1]);
    expect((await revocations()).some((e) => e.id === revocationDigest('long-gone'))).toBe(false);
    expect((await env.pool.query("SELECT 1 FROM auth.revocations WHERE id = $1", [revocationDigest('long-gone')])).rowCount).toBe(0);
  });
});
