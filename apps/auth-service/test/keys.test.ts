import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import jwt from 'jsonwebtoken';
import request from 'supertest';
import { TOKEN_ALGORITHM } from '@custos/contracts';
import { TokenVerifier } from '@custos/service-kit';
import { ClientStore } from '../src/clients/client-store';
import { hashSecret } from '../src/hashing/secrets';
import { KeyStore, thumbprint } from '../src/keys/key-store';
import { countRows, testEnv, tokenFor, type TestEnv } from './helpers';

const JWKS = '/.well-known/jwks.json';
let env: TestEnv;

interface Jwk {
  kid: string;
  alg: string;
  use: string;
  kty: string;
  crv: string;
  x: string;
  y: string;
  d?: string;
  [member: string]: unknown;
}

beforeAll(async () => {
  env = await testEnv();
  await new ClientStore(env.pool).create({
    id: 'keys-client',
    secretHash: await hashSecret('keys-secret'),
    scopes: ['event:decide'],
    solutions: ['acme'],
    description: '',
  });
});

afterAll(async () => {
  await env.close();
});

const jwksOf = async (app: Express) => (await request(app).get(JWKS)).body as { keys: Jwk[] };
const kidOf = (token: string) => jwt.decode(token, { complete: true })!.header.kid;

async function listening(app: Express): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('signing keys', () => {
  it('are created on first start, and the JWKS publishes the public part only', async () => {
    expect(await countRows(env.pool, 'auth.signing_keys')).toBe(0);
    const app = await env.app();
    expect(await countRows(env.pool, 'auth.signing_keys')).toBe(1);
    const response = await request(app).get(JWKS);
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.headers['cache-control']).toBe('public, max-age=60');
    const { keys } = response.body as { keys: Jwk[] };
    expect(keys).toHaveLength(1);
    const key = keys[0]!;
    expect(key).toMatchObject({ kty: 'EC', crv: 'P-256', alg: TOKEN_ALGORITHM, use: 'sig' });
    expect(key.d).toBeUndefined();
    expect(key.kid).toBe(thumbprint(key));
    const row = await env.pool.query<{ private_key: string; algorithm: string }>('SELECT private_key, algorithm FROM auth.signing_keys');
    expect(row.rows[0]!.algorithm).toBe('ES256');
    expect(row.rows[0]!.private_key).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    expect(JSON.stringify(response.body)).not.toContain(row.rows[0]!.private_key.split('\n')[1]!);
  });

  it('survive a restart: a second app on the same database signs with the same kid, and each verifies the other', async () => {
    const first = await env.app();
    const second = await env.app();
    expect(await countRows(env.pool, 'auth.signing_keys')).toBe(1);
    const kidsFirst = (await jwksOf(first)).keys.map((k) => k.kid);
    expect((await jwksOf(second)).keys.map((k) => k.kid)).toEqual(kidsFirst);

    const token = await tokenFor(first, 'keys-client', 'keys-secret');
    expect(kidOf(token)).toBe(kidsFirst[0]);
    expect(kidOf(await tokenFor(second, 'keys-client', 'keys-secret'))).toBe(kidsFirst[0]);
    const server = await listening(second);
    try {
      const principal = await new TokenVerifier({ jwksUrl: `${server.url}${JWKS}` }).authenticate(`Bearer ${token}`);
      expect(principal.clientId).toBe('keys-client');
    } finally {
      await server.close();
    }
  });

  it('instances starting together create exactly one key', async () => {
    await env.pool.query('DELETE FROM auth.signing_keys');
    const stores = await Promise.all(Array.from({ length: 4 }, () => KeyStore.open(env.pool, { logger: env.logger })));
    expect(await countRows(env.pool, 'auth.signing_keys')).toBe(1);
    expect(new Set(stores.map((store) => store.signingKey().kid)).size).toBe(1);
  });

  it('a retiring key stays published until it retires; the newest active key signs (ready for rotation)', async () => {
    const app = await env.app();
    const oldKid = (await jwksOf(app)).keys[0]!.kid;
    // What rotation will do: retire the old key later than the longest-lived token, add a new one.
    await env.pool.query("UPDATE auth.signing_keys SET retires_at = now() + interval '1 hour' WHERE kid = $1", [oldKid]);
    const rotated = await env.app();
    const kids = (await jwksOf(rotated)).keys.map((k) => k.kid);
    expect(kids).toHaveLength(2);
    expect(kids).toContain(oldKid);
    const newKid = kids.find((kid) => kid !== oldKid)!;
    expect(kidOf(await tokenFor(rotated, 'keys-client', 'keys-secret'))).toBe(newKid);
    const store = await KeyStore.open(env.pool, { logger: env.logger });
    expect(await store.key(oldKid)).toBeDefined();

    await env.pool.query("UPDATE auth.signing_keys SET retires_at = now() - interval '1 second' WHERE kid = $1", [oldKid]);
    const after = await KeyStore.open(env.pool, { logger: env.logger });
    expect((await after.jwks()).keys.map((k) => k.kid)).toEqual([newKid]);
    expect(await after.key(oldKid)).toBeUndefined();
    expect(await after.key(newKid)).toBeDefined();
  });

  it('a key added by another instance is found on an unknown kid (reload)', async () => {
    const store = await KeyStore.open(env.pool, { logger: env.logger, minReloadIntervalMs: 0 });
    const current = store.signingKey().kid;
    await env.pool.query("UPDATE auth.signing_keys SET retires_at = now() + interval '1 hour' WHERE retires_at IS NULL");
    const other = await KeyStore.open(env.pool, { logger: env.logger });
    const added = other.signingKey().kid;
    expect(added).not.toBe(current);
    expect(await store.key(added)).toBeDefined();
    expect(await store.key('no-such-kid')).toBeUndefined();
  });
});
