import {
  ADMIN_ID,
  ADMIN_SECRET,
  call,
  clientToken,
  createTestDatabase,
  startService,
  TEST_NATS_URL,
  uniqueNatsPrefix,
  type RunningService,
  type TestDatabase,
} from '@custos/test-kit';
import { leakedSecrets, tokenSecrets } from './support/stack';

/**
 * Failed token requests are counted in the database: two auth processes on one database allow, together,
 * exactly the limit of failures per client id and address and per address, not twice as many, and slow a
 * client id on the failures either of them counted.
 */
const LIMIT = 5;
let database: TestDatabase;
let auths: RunningService[] = [];
let victim: { id: string; secret: string };
const secrets = [ADMIN_SECRET];

beforeAll(async () => {
  database = await createTestDatabase('custos_security');
  const env = {
    DATABASE_URL: database.url,
    NATS_URL: TEST_NATS_URL,
    NATS_PREFIX: uniqueNatsPrefix(),
    BOOTSTRAP_CLIENT_ID: ADMIN_ID,
    BOOTSTRAP_CLIENT_SECRET: ADMIN_SECRET,
    AUTH_FAILURE_LIMIT: String(LIMIT),
    AUTH_FAILURE_WINDOW_SECONDS: '600',
    // Short: slowed sign-ins are counted here, not timed.
    AUTH_FAILURE_DELAY_MS: '20',
    // The test names each request's source in X-Forwarded-For, so one machine can act as many callers.
    AUTH_TRUST_PROXY: 'loopback',
  };
  const settled = await Promise.allSettled([startService('auth-service', env), startService('auth-service', env)]);
  auths = settled.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
  const failed = settled.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
  if (failed) throw failed.reason;
  const admin = await clientToken(auths[0]?.url ?? '', ADMIN_ID, ADMIN_SECRET);
  secrets.push(...tokenSecrets(admin));
  const created = await call('POST', `${auths[0]?.url ?? ''}/clients`, { token: admin, json: { solutions: ['acme'], scopes: ['event:decide'] } });
  victim = { id: created.body.client_id as string, secret: created.body.client_secret as string };
  secrets.push(victim.secret);
}, 90_000);

afterAll(async () => {
  await Promise.all(auths.map((auth) => auth.stop()));
  await database?.drop();
}, 60_000);

/** A token request to replica `replica` as if from `source`. */
async function tokenRequest(replica: number, source: string, clientId: string, clientSecret: string): Promise<{ status: number; retryAfter: string | null }> {
  const auth = auths[replica % auths.length];
  if (!auth) throw new Error('no auth process');
  const response = await fetch(`${auth.url}/oauth/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Forwarded-For': source },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }),
  });
  const body = (await response.json()) as { access_token?: string };
  if (body.access_token) secrets.push(...tokenSecrets(body.access_token));
  return { status: response.status, retryAfter: response.headers.get('retry-after') };
}

/** How many sign-ins each replica slowed so far (its /metrics). */
async function slowedSignIns(): Promise<[number, number]> {
  const counts = await Promise.all(
    auths.map(async (auth) => {
      const metrics = await (await fetch(`${auth.url}/metrics`)).text();
      return Number(/^auth_slowed_sign_ins_total(?:\{[^}]*\})? (\d+)$/m.exec(metrics)?.[1] ?? 0);
    }),
  );
  return [counts[0] ?? 0, counts[1] ?? 0];
}

const count = (answers: Array<{ status: number }>, status: number) => answers.filter((answer) => answer.status === status).length;

describe('failure limits across two auth replicas on one database', () => {
  it('per client id and address: parallel guesses from one address, spread over both replicas, get the limit in total', async () => {
    const answers = await Promise.all(Array.from({ length: 4 * LIMIT }, (_, i) => tokenRequest(i, '10.1.0.1', victim.id, `guess-${i}`)));
    expect(count(answers, 401)).toBe(LIMIT);
    expect(count(answers, 429)).toBe(3 * LIMIT);
    // The right secret from that address, at either replica: refused until the window ends.
    for (const replica of [0, 1]) {
      const refused = await tokenRequest(replica, '10.1.0.1', victim.id, victim.secret);
      expect(refused.status).toBe(429);
      expect(Number(refused.retryAfter)).toBeGreaterThan(0);
      expect(Number(refused.retryAfter)).toBeLessThanOrEqual(600);
    }
  });

  it('per client id from many addresses: never refused, and both replicas slow it on the failures counted by either', async () => {
    const answers = await Promise.all(Array.from({ length: 4 * LIMIT }, (_, i) => tokenRequest(i, `10.3.0.${i + 1}`, victim.id, `guess-${i}`)));
    expect(count(answers, 401)).toBe(4 * LIMIT);
    const before = await slowedSignIns();
    for (const replica of [0, 1]) expect((await tokenRequest(replica, `10.2.0.${replica + 1}`, victim.id, victim.secret)).status).toBe(200);
    expect(await slowedSignIns()).toEqual([before[0] + 1, before[1] + 1]);
  });

  it('per source address: guesses at any client ids from one address, alternating replicas, get the limit in total', async () => {
    const answers = [];
    for (let i = 0; i < 3 * LIMIT; i++) answers.push(await tokenRequest(i, '198.51.100.9', `c_guess${i}`, 'wrong'));
    expect(answers.map((answer) => answer.status)).toEqual([...Array<number>(LIMIT).fill(401), ...Array<number>(2 * LIMIT).fill(429)]);
    expect((await tokenRequest(0, '198.51.100.9', ADMIN_ID, ADMIN_SECRET)).status).toBe(429);
    expect((await tokenRequest(1, '198.51.100.10', ADMIN_ID, ADMIN_SECRET)).status).toBe(200);
  });

  it('successes are forgiven on either replica: more good requests than the limit all pass', async () => {
    const answers = [];
    for (let i = 0; i < 2 * LIMIT; i++) answers.push(await tokenRequest(i, '203.0.113.50', ADMIN_ID, ADMIN_SECRET));
    expect(count(answers, 200)).toBe(2 * LIMIT);
  });

  it('no secret leaked into outputs or metrics', async () => {
    expect(await leakedSecrets(auths, secrets)).toEqual([]);
  });
});
