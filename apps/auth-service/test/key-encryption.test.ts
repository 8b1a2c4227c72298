import { generateKeyPairSync, randomBytes } from 'node:crypto';
import request from 'supertest';
import { ConfigError } from '@custos/service-kit';
import { runCli } from '../src/cli';
import { ClientStore } from '../src/clients/client-store';
import { hashSecret } from '../src/hashing/secrets';
import { isSealed, open, operatorKey, rewrap, seal, SealError, sealedWith } from '../src/keys/envelope';
import { NO_ENCRYPTION, readKeyEncryption, type KeyEncryption } from '../src/keys/key-encryption';
import { secureKeysAtRest } from '../src/keys/at-rest';
import { KeyStore } from '../src/keys/key-store';
import { rotateSigningKey } from '../src/keys/rotation';
import { testEnv, tokenFor, type TestEnv } from './helpers';

const pem = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
const base64Key = () => randomBytes(32).toString('base64');
const encryptionOf = (current: string, ...previous: string[]): KeyEncryption =>
  readKeyEncryption({ AUTH_KEY_ENCRYPTION_KEY: current, ...(previous.length > 0 ? { AUTH_KEY_ENCRYPTION_KEY_PREVIOUS: previous.join(',') } : {}) });

describe('the envelope', () => {
  const first = operatorKey(randomBytes(32));
  const second = operatorKey(randomBytes(32));

  it('seals a private key so that neither the PEM nor its base64 lines are in the stored text, and opens it again', () => {
    const stored = seal('kid-1', pem, first);
    expect(isSealed(stored)).toBe(true);
    expect(stored).not.toContain('PRIVATE KEY');
    for (const line of pem.split('\n').filter((l) => l.length > 20)) expect(stored).not.toContain(line);
    expect(sealedWith(stored)).toBe(first.fingerprint);
    expect(open('kid-1', stored, first)).toBe(pem);
  });

  it('does not open with another operator key, under another key id, or once altered', () => {
    const stored = seal('kid-1', pem, first);
    expect(() => open('kid-1', stored, second)).toThrow(SealError);
    // Same secret bytes but a forged fingerprint: the wrapped data key is bound to the real one.
    expect(() => open('kid-1', stored.replace(first.fingerprint, second.fingerprint), { ...first, fingerprint: second.fingerprint })).toThrow(SealError);
    expect(() => open('kid-2', stored, first)).toThrow(SealError);
    const parts = stored.split('.');
    const body = Buffer.from(parts[4] ?? '', 'base64url');
    body[20] = (body[20] ?? 0) ^ 1;
    parts[4] = body.toString('base64url');
    expect(() => open('kid-1', parts.join('.'), first)).toThrow(SealError);
  });

  it('re-wraps under a new operator key: opens with the new key only, the sealed key itself unchanged', () => {
    const stored = seal('kid-1', pem, first);
    const moved = rewrap('kid-1', stored, first, second);
    expect(sealedWith(moved)).toBe(second.fingerprint);
    expect(moved.split('.')[4]).toBe(stored.split('.')[4]);
    expect(open('kid-1', moved, second)).toBe(pem);
    expect(() => open('kid-1', moved, first)).toThrow(SealError);
  });

  it('fingerprints name a key without revealing it, and differ between keys', () => {
    expect(first.fingerprint).toMatch(/^[A-Za-z0-9_-]{16}$/);
    expect(first.fingerprint).not.toBe(second.fingerprint);
    expect(operatorKey(Buffer.from(first.secret)).fingerprint).toBe(first.fingerprint);
  });
});

describe('the operator key variables', () => {
  it('refuse to start in production without a key, in one sentence naming the variable', () => {
    expect(() => readKeyEncryption({ NODE_ENV: 'production' })).toThrow(ConfigError);
    expect(() => readKeyEncryption({ NODE_ENV: 'production' })).toThrow(/^set AUTH_KEY_ENCRYPTION_KEY .*refuses to keep signing keys unencrypted$/);
    expect(readKeyEncryption({ NODE_ENV: 'development' })).toBe(NO_ENCRYPTION);
  });

  it('refuse malformed keys without echoing them, and previous keys without a current one', () => {
    const short = randomBytes(16).toString('base64');
    let message = '';
    try {
      readKeyEncryption({ AUTH_KEY_ENCRYPTION_KEY: short });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/^AUTH_KEY_ENCRYPTION_KEY must hold 32 random bytes in base64/);
    expect(message).not.toContain(short);
    expect(() => readKeyEncryption({ AUTH_KEY_ENCRYPTION_KEY: `${base64Key()}!` })).toThrow(/must hold 32 random bytes/);
    expect(() => readKeyEncryption({ AUTH_KEY_ENCRYPTION_KEY_PREVIOUS: base64Key() })).toThrow(/set without AUTH_KEY_ENCRYPTION_KEY/);
  });

  it('read a current key and comma-separated previous ones, base64 or base64url', () => {
    const [a, b, c] = [randomBytes(32), randomBytes(32), randomBytes(32)];
    const read = readKeyEncryption({
      AUTH_KEY_ENCRYPTION_KEY: a.toString('base64'),
      AUTH_KEY_ENCRYPTION_KEY_PREVIOUS: `${b.toString('base64url')}, ${c.toString('base64')}`,
    });
    expect(read.current?.fingerprint).toBe(operatorKey(a).fingerprint);
    expect(read.previous.map((key) => key.fingerprint)).toEqual([operatorKey(b).fingerprint, operatorKey(c).fingerprint]);
  });
});

describe('signing keys at rest, across restarts of auth', () => {
  let env: TestEnv;
  const [k1, k2] = [base64Key(), base64Key()];

  beforeAll(async () => {
    env = await testEnv();
    await new ClientStore(env.pool).create({
      id: 'at-rest',
      secretHash: await hashSecret('at-rest-secret'),
      scopes: ['client:admin'],
      solutions: ['*'],
      description: '',
    });
  });
  afterAll(async () => env.close());

  const storedKeys = async () => (await env.pool.query<{ kid: string; private_key: string }>('SELECT kid, private_key FROM auth.signing_keys ORDER BY kid')).rows;
  const appWith = (keyEncryption: KeyEncryption) => env.app({ config: { bootstrap: undefined, trustProxy: false, keyEncryption } });

  it('keeps keys in the clear without an operator key (development), with a warning', async () => {
    const app = await appWith(NO_ENCRYPTION);
    await tokenFor(app, 'at-rest', 'at-rest-secret');
    expect((await storedKeys()).every((row) => row.private_key.startsWith('-----BEGIN PRIVATE KEY-----'))).toBe(true);
    expect(env.logs()).toMatch(/signing keys are stored unencrypted/);
  });

  it('seals keys found in the clear once a key is set; a token of before still verifies', async () => {
    const before = await tokenFor(await appWith(NO_ENCRYPTION), 'at-rest', 'at-rest-secret');
    const first = encryptionOf(k1);
    const app = await appWith(first);
    const rows = await storedKeys();
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      expect(row.private_key).not.toContain('PRIVATE KEY');
      expect(sealedWith(row.private_key)).toBe(first.current?.fingerprint);
    }
    expect((await request(app).get('/clients').set('Authorization', `Bearer ${before}`)).status).toBe(200);
    const after = await tokenFor(app, 'at-rest', 'at-rest-secret');
    expect((await request(app).get('/clients').set('Authorization', `Bearer ${after}`)).status).toBe(200);
  });

  it('seals keys made by a rotation under the current key', async () => {
    const first = encryptionOf(k1);
    const rotation = await rotateSigningKey(env.pool, 0, first);
    const row = (await storedKeys()).find((r) => r.kid === rotation.key.kid);
    expect(row && sealedWith(row.private_key)).toBe(first.current?.fingerprint);
  });

  it('re-wraps every key under a new operator key when the old one is named as previous', async () => {
    const before = await tokenFor(await appWith(encryptionOf(k1)), 'at-rest', 'at-rest-secret');
    const second = encryptionOf(k2, k1);
    const app = await appWith(second);
    for (const row of await storedKeys()) expect(sealedWith(row.private_key)).toBe(second.current?.fingerprint);
    expect((await request(app).get('/clients').set('Authorization', `Bearer ${before}`)).status).toBe(200);
    // The previous key is no longer needed.
    const alone = await appWith(encryptionOf(k2));
    expect((await request(alone).get('/clients').set('Authorization', `Bearer ${before}`)).status).toBe(200);
  });

  it('refuses to start with a sentence naming the fingerprint of the operator key it lacks, changing nothing', async () => {
    const rows = await storedKeys();
    const missing = encryptionOf(k2).current?.fingerprint ?? '';
    await expect(appWith(encryptionOf(k1))).rejects.toThrow(
      `signing keys are sealed with the operator key \`${missing}\`, which neither AUTH_KEY_ENCRYPTION_KEY nor AUTH_KEY_ENCRYPTION_KEY_PREVIOUS holds: set it there to start`,
    );
    await expect(appWith(NO_ENCRYPTION)).rejects.toThrow(`\`${missing}\``);
    expect(await storedKeys()).toEqual(rows);
  });

  it('the clients CLI reads the same variables: rotate-key seals under the current key, or refuses as auth does', async () => {
    const cli = async (extra: Record<string, string>) => {
      let out = '';
      let err = '';
      const code = await runCli(['rotate-key', '--activate-in', '0', '--json'], { DATABASE_URL: env.database.url, ...extra }, {
        out: (line) => (out += line),
        err: (line) => (err += line),
      });
      return { code, out, err };
    };
    const rows = await storedKeys();
    const k2Fingerprint = encryptionOf(k2).current?.fingerprint ?? '';
    expect(await cli({ NODE_ENV: 'production' })).toMatchObject({ code: 1, err: expect.stringMatching(/^error: set AUTH_KEY_ENCRYPTION_KEY /) });
    expect(await cli({ AUTH_KEY_ENCRYPTION_KEY: k1 })).toMatchObject({ code: 1, err: expect.stringContaining(`\`${k2Fingerprint}\``) });
    expect(await storedKeys()).toEqual(rows);

    const done = await cli({ AUTH_KEY_ENCRYPTION_KEY: k2 });
    expect(done.code).toBe(0);
    const kid = (JSON.parse(done.out) as { key: { kid: string } }).key.kid;
    const row = (await storedKeys()).find((r) => r.kid === kid);
    expect(row && sealedWith(row.private_key)).toBe(k2Fingerprint);
  });
});

describe('an instance running while another rotates the operator key', () => {
  let env: TestEnv;
  beforeAll(async () => {
    env = await testEnv();
  });
  afterAll(async () => env.close());

  it('keeps signing with the keys it opened before they were re-wrapped, and publishes a key it cannot open without signing with it', async () => {
    const [k1, k2] = [base64Key(), base64Key()];
    await secureKeysAtRest(env.pool, encryptionOf(k1), env.logger);
    const running = await KeyStore.open(env.pool, { logger: env.logger, encryption: encryptionOf(k1) });
    const kid = running.signingKey().kid;

    // Another instance starts with the new operator key: every key is re-wrapped, then a rotation adds one under it.
    await secureKeysAtRest(env.pool, encryptionOf(k2, k1), env.logger);
    await running.reload();
    expect(running.signingKey().kid).toBe(kid);
    const rotation = await rotateSigningKey(env.pool, 0, encryptionOf(k2));
    await running.reload();
    expect((await running.jwks()).keys.map((key) => key.kid)).toEqual(expect.arrayContaining([kid, rotation.key.kid]));
    expect(running.signingKey().kid).toBe(kid);
    expect(env.logs()).toMatch(/sealed under an operator key this instance does not hold/);
  });
});
