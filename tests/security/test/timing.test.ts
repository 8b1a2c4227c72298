import { randomBytes } from 'node:crypto';
import { ADMIN_ID, ADMIN_SECRET, clientToken, createTestDatabase, startService, type RunningService, type TestDatabase } from '@custos/test-kit';
import { call, leakedSecrets } from './support/stack';

/**
 * The token endpoint answers an unknown client and a wrong secret alike: same answer, and the same
 * time within noise (both pay one scrypt verification). Runs its own auth process with the failure
 * limit raised, so the many deliberate failures are not cut short by 429s.
 */
let database: TestDatabase;
let limitedDatabase: TestDatabase;
let auth: RunningService;
let limited: RunningService;
let client: { id: string; secret: string };
let limitedClient: { id: string; secret: string };

beforeAll(async () => {
  database = await createTestDatabase('custos_timing');
  // Failure counts are shared through the database: the limited instance gets one of its own, so the
  // deliberate failures of the timing runs do not count there.
  limitedDatabase = await createTestDatabase('custos_timing');
  const env = { BOOTSTRAP_CLIENT_ID: ADMIN_ID, BOOTSTRAP_CLIENT_SECRET: ADMIN_SECRET, LOG_LEVEL: 'warn' };
  auth = await startService('auth-service', { ...env, DATABASE_URL: database.url, AUTH_FAILURE_LIMIT: '1000000' });
  limited = await startService('auth-service', { ...env, DATABASE_URL: limitedDatabase.url, AUTH_FAILURE_LIMIT: '3', AUTH_FAILURE_WINDOW_SECONDS: '600' });
  const register = async (url: string) => {
    const admin = await clientToken(url, ADMIN_ID, ADMIN_SECRET);
    const created = await call('POST', `${url}/clients`, { token: admin, json: { solutions: ['acme'], scopes: ['event:decide'] } });
    return { id: created.body.client_id as string, secret: created.body.client_secret as string };
  };
  client = await register(auth.url);
  limitedClient = await register(limited.url);
}, 120_000);

afterAll(async () => {
  await Promise.all([auth?.stop(), limited?.stop()]);
  await database?.drop();
  await limitedDatabase?.drop();
}, 60_000);

interface Sample {
  ms: number;
  status: number;
  body: string;
  challenge: string | null;
}

async function tokenRequest(url: string, clientId: string, secret: string): Promise<Sample> {
  const body = new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: secret });
  const started = process.hrtime.bigint();
  const response = await fetch(`${url}/oauth/token`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body });
  const text = await response.text();
  return { ms: Number(process.hrtime.bigint() - started) / 1e6, status: response.status, body: text, challenge: response.headers.get('www-authenticate') };
}

const unknownClient = () => tokenRequest(auth.url, `c_${randomBytes(16).toString('base64url')}`, randomBytes(32).toString('base64url'));
const wrongSecret = () => tokenRequest(auth.url, client.id, randomBytes(32).toString('base64url'));

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const position = (sorted.length - 1) * q;
  const low = Math.floor(position);
  const high = Math.ceil(position);
  return sorted[low]! + (sorted[high]! - sorted[low]!) * (position - low);
}
const median = (values: number[]) => quantile(values, 0.5);

describe('POST /oauth/token: unknown client vs wrong secret', () => {
  it('give the same answer', async () => {
    const [unknown, wrong] = [await unknownClient(), await wrongSecret()];
    expect(unknown.status).toBe(401);
    expect(wrong.status).toBe(401);
    expect(unknown.body).toBe(wrong.body);
    expect(unknown.challenge).toBe(wrong.challenge);
    expect(JSON.parse(unknown.body)).toEqual({ error: 'invalid_client', error_description: 'client authentication failed' });
  });

  it('take the same time within noise (paired samples, alternating order; medians compared)', async () => {
    for (let i = 0; i < 10; i += 1) { await unknownClient(); await wrongSecret(); } // warm up
    const pairs = 80;
    const unknown: number[] = [];
    const wrong: number[] = [];
    const differences: number[] = [];
    for (let i = 0; i < pairs; i += 1) {
      // Alternate which goes first, so drift and connection reuse hit both sides alike.
      const first = i % 2 === 0 ? await unknownClient() : await wrongSecret();
      const second = i % 2 === 0 ? await wrongSecret() : await unknownClient();
      const [u, w] = i % 2 === 0 ? [first, second] : [second, first];
      expect([u.status, w.status]).toEqual([401, 401]);
      unknown.push(u.ms);
      wrong.push(w.ms);
      differences.push(w.ms - u.ms);
    }
    const all = [...unknown, ...wrong];
    const pooledMedian = median(all);
    const pairedMedian = median(differences);
    const slowerShare = differences.filter((d) => d > 0).length / pairs;
    console.log(
      `token endpoint timing over ${pairs} pairs: unknown client median ${median(unknown).toFixed(2)} ms ` +
        `(IQR ${quantile(unknown, 0.25).toFixed(2)}–${quantile(unknown, 0.75).toFixed(2)}), wrong secret median ${median(wrong).toFixed(2)} ms ` +
        `(IQR ${quantile(wrong, 0.25).toFixed(2)}–${quantile(wrong, 0.75).toFixed(2)}); median paired difference ${pairedMedian.toFixed(2)} ms ` +
        `= ${((100 * pairedMedian) / pooledMedian).toFixed(1)} % of the median; wrong secret slower in ${(100 * slowerShare).toFixed(0)} % of pairs`,
    );
    // 1. Effect size: the typical paired difference is under 10 % of the cost of a request.
    //    (Skipping the dummy scrypt for unknown ids makes it about 95 %.)
    expect(Math.abs(pairedMedian)).toBeLessThan(0.1 * pooledMedian);
    // 2. Sign test: with no difference, each side is slower in half the pairs (σ ≈ 5.6 % at 80 pairs);
    //    outside 20–80 % is over 5 σ away, which a real difference reaches and noise does not.
    expect(slowerShare).toBeGreaterThan(0.2);
    expect(slowerShare).toBeLessThan(0.8);
  }, 120_000);
});

describe('failed attempts are limited per client id and address, and per address', () => {
  it('after AUTH_FAILURE_LIMIT failures from one address: 429 there with Retry-After, even for the right secret, until the window ends', async () => {
    for (let i = 0; i < 3; i += 1) expect((await tokenRequest(limited.url, limitedClient.id, 'wrong-secret-0123456789')).status).toBe(401);
    for (const [id, secret] of [[limitedClient.id, limitedClient.secret], [limitedClient.id, 'wrong'], [`c_${randomBytes(8).toString('hex')}`, 'x']] as const) {
      const body = new URLSearchParams({ grant_type: 'client_credentials', client_id: id, client_secret: secret });
      const response = await fetch(`${limited.url}/oauth/token`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body });
      expect(response.status).toBe(429);
      expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect(((await response.json()) as { error: string }).error).toBe('too_many_requests');
    }
    // An instance on another database counts its own failures (replicas of one database share them: rate-limit-replicas.test.ts).
    expect((await tokenRequest(auth.url, client.id, client.secret)).status).toBe(200);
  });

  it('no secret appears in either process output', async () => {
    expect(await leakedSecrets([auth, limited], [client.secret, limitedClient.secret, ADMIN_SECRET])).toEqual([]);
  });
});
