import {
  ADMIN_ID,
  ADMIN_SECRET,
  createTestDatabase,
  freePort,
  startService,
  TEST_NATS_URL,
  uniqueNatsPrefix,
  type RunningService,
  type TestDatabase,
} from '@custos/test-kit';
import { leakedSecrets, tokenSecrets } from './support/stack';

/**
 * Strangers cannot lock console users or a client out (issue 20, item 3). Real auth and pap processes on one
 * database: auth trusts loopback (where pap runs) to name the caller's address; `gatewayPap` trusts one proxy hop in
 * front of it, as behind the compose gateway (the test plays the gateway and appends the browser's address to
 * `X-Forwarded-For`); `plainPap` trusts no proxy, as when browsers reach pap directly.
 */
const LIMIT = 4;
/** Above LIMIT, so the per-(client id, address) limit shows apart from the per-address one. */
const SOURCE_LIMIT = 2 * LIMIT;
let database: TestDatabase;
let auth: RunningService;
let gatewayPap: RunningService;
let plainPap: RunningService;
const secrets = [ADMIN_SECRET];

beforeAll(async () => {
  database = await createTestDatabase('custos_security');
  const authPort = await freePort();
  const env = {
    DATABASE_URL: database.url,
    NATS_URL: TEST_NATS_URL,
    NATS_PREFIX: uniqueNatsPrefix(),
    AUTH_URL: `http://127.0.0.1:${authPort}`,
  };
  auth = await startService('auth-service', {
    ...env,
    AUTH_PORT: String(authPort),
    BOOTSTRAP_CLIENT_ID: ADMIN_ID,
    BOOTSTRAP_CLIENT_SECRET: ADMIN_SECRET,
    AUTH_FAILURE_LIMIT: String(LIMIT),
    AUTH_SOURCE_FAILURE_LIMIT: String(SOURCE_LIMIT),
    AUTH_FAILURE_WINDOW_SECONDS: '600',
    // Short, so the slowed sign-ins below do not make the test long; it is counted, not timed.
    AUTH_FAILURE_DELAY_MS: '50',
    AUTH_TRUST_PROXY: 'loopback',
  });
  const settled = await Promise.allSettled([startService('pap-service', { ...env, PAP_TRUST_PROXY: '1' }), startService('pap-service', env)]);
  const started = settled.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
  const failed = settled.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
  if (failed) {
    await Promise.all(started.map((service) => service.stop()));
    throw failed.reason;
  }
  [gatewayPap, plainPap] = started as [RunningService, RunningService];
}, 120_000);

afterAll(async () => {
  await Promise.all([auth, gatewayPap, plainPap].filter(Boolean).map((service) => service.stop()));
  await database?.drop();
}, 60_000);

interface SignIn {
  status: number;
  retryAfter: string | null;
}

async function answerOf(response: Response): Promise<SignIn> {
  const body = (await response.json()) as { access_token?: string };
  if (body.access_token) secrets.push(...tokenSecrets(body.access_token));
  return { status: response.status, retryAfter: response.headers.get('retry-after') };
}

/** A console sign-in (Basic credentials, as the console sends them) through `pap` with this X-Forwarded-For. */
async function consoleSignIn(pap: RunningService, forwardedFor: string, clientId: string, secret: string): Promise<SignIn> {
  const basic = Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(secret)}`).toString('base64');
  const response = await fetch(`${pap.url}/console/token`, {
    method: 'POST',
    headers: { Authorization: `Basic ${basic}`, 'Content-Type': 'application/x-www-form-urlencoded', 'X-Forwarded-For': forwardedFor },
    body: 'grant_type=client_credentials',
  });
  return answerOf(response);
}

/** A token request straight to auth as if from `source` (auth believes loopback's X-Forwarded-For). */
async function directSignIn(source: string, clientId: string, secret: string): Promise<SignIn> {
  const response = await fetch(`${auth.url}/oauth/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Forwarded-For': source },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: secret }),
  });
  return answerOf(response);
}

async function slowedCount(): Promise<number> {
  const metrics = await (await fetch(`${auth.url}/metrics`)).text();
  const match = /^auth_slowed_sign_ins_total(?:\{[^}]*\})? (\d+)$/m.exec(metrics);
  return match ? Number(match[1]) : 0;
}

const statuses = (answers: SignIn[]) => answers.map((answer) => answer.status);

describe('console sign-ins through pap', () => {
  it('a stranger spraying client ids locks out only their own address, not every console user', async () => {
    const answers: SignIn[] = [];
    for (let i = 0; i < SOURCE_LIMIT + 2; i++) answers.push(await consoleSignIn(gatewayPap, '203.0.113.66', `c_sprayed${i}`, 'wrong'));
    expect(statuses(answers)).toEqual([...Array<number>(SOURCE_LIMIT).fill(401), 429, 429]);
    // The stranger's browser, whatever it writes in front of the address the gateway appends, stays refused.
    expect((await consoleSignIn(gatewayPap, '198.51.100.30, 203.0.113.66', ADMIN_ID, ADMIN_SECRET)).status).toBe(429);
    // Everybody else signs in, through either pap.
    expect((await consoleSignIn(gatewayPap, '198.51.100.30', ADMIN_ID, ADMIN_SECRET)).status).toBe(200);
    expect((await consoleSignIn(plainPap, '203.0.113.66', ADMIN_ID, ADMIN_SECRET)).status).toBe(200);
  });

  it('wrong secrets for a known client id lock it out at that address only; elsewhere the right secret is slowed, not refused', async () => {
    const answers: SignIn[] = [];
    for (let i = 0; i < LIMIT; i++) answers.push(await consoleSignIn(gatewayPap, '203.0.113.77', ADMIN_ID, `guess-${i}`));
    expect(statuses(answers)).toEqual(Array<number>(LIMIT).fill(401));
    const refused = await consoleSignIn(gatewayPap, '203.0.113.77', ADMIN_ID, ADMIN_SECRET);
    expect(refused.status).toBe(429);
    expect(Number(refused.retryAfter)).toBeGreaterThan(0);
    expect(Number(refused.retryAfter)).toBeLessThanOrEqual(600);
    // Another client id from that address is not refused: the address itself is below SOURCE_LIMIT.
    expect((await consoleSignIn(gatewayPap, '203.0.113.77', 'c_someone-else', 'wrong')).status).toBe(401);

    const slowedBefore = await slowedCount();
    expect((await consoleSignIn(gatewayPap, '198.51.100.31', ADMIN_ID, ADMIN_SECRET)).status).toBe(200);
    expect((await directSignIn('198.51.100.32', ADMIN_ID, ADMIN_SECRET)).status).toBe(200);
    expect(await slowedCount()).toBe(slowedBefore + 2);
  });

  it('a pap that trusts no proxy passes on the socket address, never the X-Forwarded-For a browser wrote', async () => {
    const answers: SignIn[] = [];
    for (let i = 0; i < SOURCE_LIMIT; i++) answers.push(await consoleSignIn(plainPap, '192.0.2.200', `c_spoof${i}`, 'wrong'));
    expect(statuses(answers)).toEqual(Array<number>(SOURCE_LIMIT).fill(401));
    // The failures were counted against the address pap saw (this machine), not the one the browser named.
    expect((await directSignIn('192.0.2.200', `c_spoof-check`, 'wrong')).status).toBe(401);
    expect((await directSignIn('127.0.0.1', `c_spoof-check`, 'wrong')).status).toBe(429);
  });
});

describe('token requests straight to auth', () => {
  it('many addresses failing for one client id slow it, and never refuse its right secret from an address that has not failed', async () => {
    const answers = await Promise.all(Array.from({ length: 3 * LIMIT }, (_, i) => directSignIn(`10.20.0.${i + 1}`, ADMIN_ID, `guess-${i}`)));
    expect(statuses(answers).every((status) => status === 401)).toBe(true);
    const slowedBefore = await slowedCount();
    expect((await directSignIn('10.20.1.1', ADMIN_ID, ADMIN_SECRET)).status).toBe(200);
    expect(await slowedCount()).toBe(slowedBefore + 1);
  });

  it('a known client id guessed from one address is refused there, with its right secret too', async () => {
    for (let i = 0; i < LIMIT; i++) expect((await directSignIn('10.30.0.1', ADMIN_ID, `guess-${i}`)).status).toBe(401);
    expect((await directSignIn('10.30.0.1', ADMIN_ID, ADMIN_SECRET)).status).toBe(429);
    expect((await directSignIn('10.30.0.2', ADMIN_ID, ADMIN_SECRET)).status).toBe(200);
  });

  it('no secret leaked into outputs or metrics', async () => {
    expect(await leakedSecrets([auth, gatewayPap, plainPap], secrets)).toEqual([]);
  });
});
