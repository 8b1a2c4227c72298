import type { Express } from 'express';
import jwt from 'jsonwebtoken';
import request from 'supertest';
import { ClientStore } from '../src/clients/client-store';
import { hashSecret } from '../src/hashing/secrets';
import { KeyStore } from '../src/keys/key-store';
import { listKeys, RETIRE_MARGIN_SECONDS, retireSigningKey, rotateSigningKey } from '../src/keys/rotation';
import { TOKEN_LIFETIME_SECONDS } from '../src/oauth/access-token';
import { testEnv, tokenFor, type TestEnv } from './helpers';

let env: TestEnv;

beforeAll(async () => {
  env = await testEnv();
  await new ClientStore(env.pool).create({
    id: 'rot-client',
    secretHash: await hashSecret('rot-secret'),
    scopes: ['event:decide', 'client:admin'],
    solutions: ['*'],
    description: '',
  });
});

afterAll(async () => {
  await env.close();
});

const kidOf = (token: string) => jwt.decode(token, { complete: true })!.header.kid as string;
const jwksKids = async (app: Express) => ((await request(app).get('/.well-known/jwks.json')).body as { keys: Array<{ kid: string }> }).keys.map((k) => k.kid);

describe('signing-key rotation', () => {
  it('publishes the new key at once, keeps signing with the old one until the new one activates', async () => {
    const app = await env.app();
    const store = await KeyStore.open(env.pool, { logger: env.logger, maxAgeMs: 0 });
    const oldKid = store.signingKey().kid;

    const rotation = await rotateSigningKey(env.pool, 3600);
    expect(rotation.key.state).toBe('pending');
    expect(rotation.retiring.map((k) => k.kid)).toEqual([oldKid]);
    // The old key outlives every token it can still sign: activation + lifetime + margin.
    expect(rotation.retiring[0]!.retiresAt!.getTime() - rotation.key.activatesAt.getTime()).toBe(
      (TOKEN_LIFETIME_SECONDS + RETIRE_MARGIN_SECONDS) * 1000,
    );

    // Another instance (maxAgeMs 0 reloads at every use) publishes both and still signs with the old key.
    expect((await store.jwks()).keys.map((k) => k.kid).sort()).toEqual([oldKid, rotation.key.kid].sort());
    expect((await store.currentSigningKey()).kid).toBe(oldKid);
    // The service's own app learns the new key at its next reload; the JWKS route reloads when stale.
    const fresh = await env.app();
    expect((await jwksKids(fresh)).sort()).toEqual([oldKid, rotation.key.kid].sort());
    expect(kidOf(await tokenFor(fresh, 'rot-client', 'rot-secret'))).toBe(oldKid);

    // At activation the new key signs, chosen at call time without a reload.
    expect(store.signingKey(rotation.key.activatesAt.getTime()).kid).toBe(rotation.key.kid);
    expect(store.signingKey(rotation.key.activatesAt.getTime() - 1).kid).toBe(oldKid);
    // A token of the old key keeps verifying at the admin API of any instance.
    const oldToken = await tokenFor(app, 'rot-client', 'rot-secret');
    expect((await request(fresh).get('/clients').set('Authorization', `Bearer ${oldToken}`)).status).toBe(200);
  });

  it('with no delay, the next token carries the new kid; the old key stays published and accepted', async () => {
    const app = await env.app();
    const before = kidOf(await tokenFor(app, 'rot-client', 'rot-secret'));
    const oldToken = await tokenFor(app, 'rot-client', 'rot-secret');
    const rotation = await rotateSigningKey(env.pool, 0);
    const restarted = await env.app();
    const after = kidOf(await tokenFor(restarted, 'rot-client', 'rot-secret'));
    expect(after).toBe(rotation.key.kid);
    expect(after).not.toBe(before);
    expect(await jwksKids(restarted)).toEqual(expect.arrayContaining([before, after]));
    expect((await request(restarted).get('/clients').set('Authorization', `Bearer ${oldToken}`)).status).toBe(200);
    // The key that signed now retires; the pending key of the previous test never signed and is withdrawn.
    const states = new Map((await listKeys(env.pool)).map((k) => [k.kid, k.state]));
    expect(states.get(after)).toBe('active');
    expect(states.get(before)).toBe('retiring');
    expect([...states.values()].filter((state) => state === 'active' || state === 'pending')).toEqual(['active']);
    expect([...states.values()].filter((state) => state === 'retired')).toHaveLength(1);
  });

  it('retire-key withdraws a key at once, but never the last one that signs', async () => {
    const keys = await listKeys(env.pool);
    const active = keys.find((k) => k.state === 'active')!;
    const retiring = keys.find((k) => k.state === 'retiring')!;
    expect(await retireSigningKey(env.pool, active.kid)).toEqual({ refused: 'last_key' });
    expect(await retireSigningKey(env.pool, 'no-such-kid')).toEqual({ refused: 'unknown' });

    const app = await env.app();
    const store = await KeyStore.open(env.pool, { logger: env.logger, maxAgeMs: 0 });
    const outcome = await retireSigningKey(env.pool, retiring.kid);
    expect('retired' in outcome && outcome.retired.state).toBe('retired');
    expect(await jwksKids(await env.app())).not.toContain(retiring.kid);
    expect(await store.key(retiring.kid)).toBeUndefined();
    expect(await retireSigningKey(env.pool, retiring.kid)).toEqual({ refused: 'unknown' });
    // Tokens keep being issued with the active key.
    expect(kidOf(await tokenFor(app, 'rot-client', 'rot-secret'))).toBe(active.kid);
  });

  it('deletes keys retired more than a day ago when rotating', async () => {
    await env.pool.query("UPDATE auth.signing_keys SET retires_at = now() - interval '2 days' WHERE retires_at <= now()");
    const before = (await listKeys(env.pool)).length;
    const rotation = await rotateSigningKey(env.pool, 0);
    expect(rotation.deleted).toBeGreaterThanOrEqual(1);
    expect((await listKeys(env.pool)).length).toBe(before + 1 - rotation.deleted);
    await expect(rotateSigningKey(env.pool, -1)).rejects.toThrow(RangeError);
  });

  it('on a database without a signing key, the rotated-in key signs at once', async () => {
    await env.pool.query('DELETE FROM auth.signing_keys');
    const rotation = await rotateSigningKey(env.pool, 3600);
    expect(rotation.key.state).toBe('active');
    expect(rotation.retiring).toEqual([]);
    const app = await env.app();
    expect(kidOf(await tokenFor(app, 'rot-client', 'rot-secret'))).toBe(rotation.key.kid);
  });
});
