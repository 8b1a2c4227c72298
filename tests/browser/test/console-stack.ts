import {
  createTestDatabase,
  freePort,
  startService,
  TEST_NATS_URL,
  uniqueNatsPrefix,
  type RunningService,
  type TestDatabase,
} from '@custos/test-kit';

/** The README's administrator client. */
export const ADMIN = { id: 'admin', secret: 'change-me-now-0123' };

export interface ConsoleStack {
  auth: RunningService;
  pap: RunningService;
  pdps: RunningService[];
  stop(): Promise<void>;
}

/**
 * auth, pap and `replicas` pdps as `npm start` runs them, on a fresh database and NATS prefix. pap is told where the
 * first pdp will listen (PDP_URL), so the console's playground reaches it.
 */
export async function startConsoleStack(replicas: number): Promise<ConsoleStack> {
  const database: TestDatabase = await createTestDatabase('custos_browser');
  const authPort = await freePort();
  const pdpPorts = await Promise.all(Array.from({ length: replicas }, () => freePort()));
  const env: Record<string, string> = {
    DATABASE_URL: database.url,
    NATS_URL: TEST_NATS_URL,
    NATS_PREFIX: uniqueNatsPrefix(),
    AUTH_URL: `http://127.0.0.1:${authPort}`,
    PDP_URL: `http://127.0.0.1:${pdpPorts[0] ?? 0}`,
    BOOTSTRAP_CLIENT_ID: ADMIN.id,
    BOOTSTRAP_CLIENT_SECRET: ADMIN.secret,
    // The Decisions page reads decision records, which pdps publish only when asked (off by default).
    PDP_DECISION_RECORDS: 'on',
  };
  const started: RunningService[] = [];
  const stop = async () => {
    await Promise.all(started.map((service) => service.stop()));
    await database.drop();
  };
  try {
    const auth = await startService('auth-service', { ...env, AUTH_PORT: String(authPort) });
    started.push(auth);
    const pap = await startService('pap-service', env);
    started.push(pap);
    const pdps: RunningService[] = [];
    for (const [index, port] of pdpPorts.entries()) {
      const pdp = await startService('pdp-service', { ...env, PDP_PORT: String(port), PDP_REPLICA_ID: `replica-${index + 1}` });
      started.push(pdp);
      pdps.push(pdp);
    }
    return { auth, pap, pdps, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** A token of the administrator client, for setting up through pap's API what a test does not click through. */
export async function adminToken(stack: ConsoleStack): Promise<string> {
  const response = await fetch(`${stack.auth.url}/oauth/token`, {
    method: 'POST',
    headers: { Authorization: `Basic ${Buffer.from(`${ADMIN.id}:${ADMIN.secret}`).toString('base64')}`, 'Content-Type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials',
  });
  return ((await response.json()) as { access_token: string }).access_token;
}
