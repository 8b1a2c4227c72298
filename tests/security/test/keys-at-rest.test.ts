import { createPrivateKey, createPublicKey, randomBytes, type JsonWebKey } from 'node:crypto';
import { Client } from 'pg';
import { openSealedKey, operatorKey, sealedWith } from '@custos/auth-service';
import {
  ADMIN_ID,
  ADMIN_SECRET,
  call,
  clientToken,
  createTestDatabase,
  freePort,
  startService,
  TEST_NATS_URL,
  uniqueNatsPrefix,
  waitFor,
  type RunningService,
  type TestDatabase,
} from '@custos/test-kit';
import { leakedSecrets, tokenSecrets } from './support/stack';

/**
 * Signing keys encrypted at rest, with real auth processes restarted on one database: in production mode
 * auth refuses to start without an operator key; with one, the database holds no readable private key;
 * the operator key is rotated by a restart naming the old one as previous, and tokens keep verifying at
 * auth and at pap throughout; a restart without the key the rows are sealed with is refused by name.
 */
let database: TestDatabase;
let authPort: number;
let baseEnv: Record<string, string>;
let pap: RunningService | undefined;
const started: RunningService[] = [];
const k1 = randomBytes(32).toString('base64');
const k2 = randomBytes(32).toString('base64');
const secrets = [k1, k2, ADMIN_SECRET];

beforeAll(async () => {
  database = await createTestDatabase('custos_security');
  authPort = await freePort();
  baseEnv = {
    DATABASE_URL: database.url,
    NATS_URL: TEST_NATS_URL,
    NATS_PREFIX: uniqueNatsPrefix(),
    AUTH_URL: `http://127.0.0.1:${authPort}`,
    BOOTSTRAP_CLIENT_ID: ADMIN_ID,
    BOOTSTRAP_CLIENT_SECRET: ADMIN_SECRET,
    NODE_ENV: 'production',
  };
}, 60_000);

afterAll(async () => {
  await Promise.all(started.map((service) => service.stop()));
  await database?.drop();
}, 60_000);

async function startAuth(keys: Record<string, string>): Promise<RunningService> {
  const auth = await startService('auth-service', { ...baseEnv, ...keys, AUTH_PORT: String(authPort) });
  started.push(auth);
  return auth;
}

async function storedKeys(): Promise<Array<{ kid: string; private_key: string; public_jwk: JsonWebKey }>> {
  const client = new Client({ connectionString: database.url });
  await client.connect();
  try {
    return (await client.query('SELECT kid, private_key, public_jwk FROM auth.signing_keys ORDER BY kid')).rows;
  } finally {
    await client.end();
  }
}

const adminToken = async () => {
  const token = await clientToken(`http://127.0.0.1:${authPort}`, ADMIN_ID, ADMIN_SECRET);
  secrets.push(...tokenSecrets(token));
  return token;
};
const verifiedByAuth = async (token: string) => (await call('GET', `http://127.0.0.1:${authPort}/clients`, { token })).status;
const verifiedByPap = async (token: string) => (await call('GET', `${pap?.url ?? ''}/ws/policy-ids`, { token })).status;

describe('signing keys encrypted at rest', () => {
  let beforeRotation: string;

  it('in production mode, auth refuses to start without an operator key, in one sentence', async () => {
    await expect(startAuth({})).rejects.toThrow(
      /set AUTH_KEY_ENCRYPTION_KEY \(32 random bytes in base64, e\.g\. from `openssl rand -base64 32`\): with NODE_ENV=production auth-service refuses to keep signing keys unencrypted/,
    );
    // It stopped at its configuration, before migrating the database.
    await expect(storedKeys()).rejects.toThrow(/relation "auth.signing_keys" does not exist/);
  }, 60_000);

  it('with one, the database holds no readable private key: no PEM, and a wrong operator key does not open it', async () => {
    const auth = await startAuth({ AUTH_KEY_ENCRYPTION_KEY: k1 });
    pap = await startService('pap-service', baseEnv);
    started.push(pap);
    beforeRotation = await adminToken();
    expect(await verifiedByPap(beforeRotation)).toBe(200);

    const rows = await storedKeys();
    expect(rows).toHaveLength(1);
    const [row] = rows;
    if (!row) throw new Error('no key row');
    expect(row.private_key).not.toMatch(/BEGIN|PRIVATE|KEY-----/);
    // Base64 of a DER PKCS#8 EC key always begins like this; it must not appear anywhere in the row.
    expect(row.private_key).not.toContain('MIGHAgEAMBMGByqGSM49');
    expect(() => openSealedKey(row.kid, row.private_key, operatorKey(randomBytes(32)))).toThrow();
    expect(() => openSealedKey(row.kid, row.private_key, operatorKey(Buffer.from(k2, 'base64')))).toThrow();
    // With the right key it is the key whose public half auth publishes.
    const opened = createPrivateKey(openSealedKey(row.kid, row.private_key, operatorKey(Buffer.from(k1, 'base64'))));
    expect(createPublicKey(opened).export({ format: 'jwk' })).toMatchObject({ x: row.public_jwk.x, y: row.public_jwk.y });
    await auth.stop();
  }, 60_000);

  it('the operator key rotates by a restart naming the old one as previous; tokens keep verifying', async () => {
    const auth = await startAuth({ AUTH_KEY_ENCRYPTION_KEY: k2, AUTH_KEY_ENCRYPTION_KEY_PREVIOUS: k1 });
    const k2Fingerprint = operatorKey(Buffer.from(k2, 'base64')).fingerprint;
    for (const row of await storedKeys()) expect(sealedWith(row.private_key)).toBe(k2Fingerprint);
    // Log lines are written in batches: wait for the one saying so.
    await waitFor(async () => auth.output().includes('signing keys re-wrapped under the current operator key'), {
      timeoutMs: 5_000,
      what: 'auth to log the re-wrap',
    });
    expect(await verifiedByAuth(beforeRotation)).toBe(200);
    expect(await verifiedByPap(beforeRotation)).toBe(200);
    const afterRotation = await adminToken();
    expect(await verifiedByAuth(afterRotation)).toBe(200);
    expect(await verifiedByPap(afterRotation)).toBe(200);
    await auth.stop();

    // The old key is no longer needed.
    const alone = await startAuth({ AUTH_KEY_ENCRYPTION_KEY: k2 });
    expect(await verifiedByAuth(beforeRotation)).toBe(200);
    expect(await verifiedByAuth(await adminToken())).toBe(200);
    await alone.stop();
  }, 90_000);

  it('auth refuses to start without the operator key the keys are sealed with, naming its fingerprint', async () => {
    const rows = await storedKeys();
    const k2Fingerprint = operatorKey(Buffer.from(k2, 'base64')).fingerprint;
    await expect(startAuth({ AUTH_KEY_ENCRYPTION_KEY: k1 })).rejects.toThrow(
      `signing keys are sealed with the operator key \`${k2Fingerprint}\`, which neither AUTH_KEY_ENCRYPTION_KEY nor AUTH_KEY_ENCRYPTION_KEY_PREVIOUS holds: set it there to start`,
    );
    expect(await storedKeys()).toEqual(rows);
  }, 60_000);

  it('no operator key or token leaked into outputs', async () => {
    const outputs = started.map((service) => service.output()).join('\n');
    expect(secrets.filter((secret) => outputs.includes(secret)).map((secret) => secret.slice(0, 6))).toEqual([]);
    if (pap) expect(await leakedSecrets([pap], secrets)).toEqual([]);
  });
});
