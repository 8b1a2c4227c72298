import { createTestDatabase, type TestDatabase } from './database';
import { uniqueNatsPrefix } from './nats';
import { freePort, startService, type RunningService } from './processes';

export const ADMIN_ID = 'system-admin';
export const ADMIN_SECRET = 'system-admin-secret-0123456789';

export interface Stack {
  database: TestDatabase;
  natsPrefix: string;
  env: Record<string, string>;
  auth: RunningService;
  pap: RunningService;
  pdps: RunningService[];
  /** Starts one more pdp (or restarts one on a given port), with extra environment if given. */
  startPdp(port?: number, extraEnv?: Record<string, string>): Promise<RunningService>;
  adminToken(): Promise<string>;
  stop(): Promise<void>;
}

/** auth, pap and `replicas` pdp processes sharing one fresh database and one NATS prefix. */
export interface StackOptions {
  natsUrl: string;
  replicas: number;
  admin?: { id: string; secret: string };
  /** A database of the caller's (e.g. on an OwnPostgresFailover); by default a fresh one on the machine's server. */
  databaseUrl?: string;
  /** More environment for every service. */
  extraEnv?: Record<string, string>;
}

export async function startStack({ natsUrl, replicas, admin = { id: ADMIN_ID, secret: ADMIN_SECRET }, databaseUrl, extraEnv = {} }: StackOptions): Promise<Stack> {
  const database: TestDatabase = databaseUrl === undefined ? await createTestDatabase('custos_system') : { name: '', url: databaseUrl, drop: async () => undefined };
  const natsPrefix = uniqueNatsPrefix();
  const authPort = await freePort();
  const env: Record<string, string> = {
    DATABASE_URL: database.url,
    NATS_URL: natsUrl,
    NATS_PREFIX: natsPrefix,
    AUTH_URL: `http://127.0.0.1:${authPort}`,
    BOOTSTRAP_CLIENT_ID: admin.id,
    BOOTSTRAP_CLIENT_SECRET: admin.secret,
    PDP_RESYNC_INTERVAL_MS: '30000',
    ...extraEnv,
  };
  const started: RunningService[] = [];
  try {
    const auth = await startService('auth-service', { ...env, AUTH_PORT: String(authPort) });
    started.push(auth);
    const pap = await startService('pap-service', env);
    started.push(pap);
    // Every replica settles before a failure is reported, so none is left running behind it.
    const settled = await Promise.allSettled(Array.from({ length: replicas }, () => startService('pdp-service', env)));
    const pdps: RunningService[] = [];
    for (const outcome of settled) if (outcome.status === 'fulfilled') pdps.push(outcome.value);
    started.push(...pdps);
    const failure = settled.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
    if (failure) throw failure.reason;
    const stack: Stack = {
      database,
      natsPrefix,
      env,
      auth,
      pap,
      pdps,
      startPdp: async (port?: number, extraEnv: Record<string, string> = {}) => {
        const pdpEnv = { ...env, ...extraEnv, ...(port === undefined ? {} : { PDP_PORT: String(port) }) };
        const pdp = await startService('pdp-service', pdpEnv);
        started.push(pdp);
        return pdp;
      },
      adminToken: () => clientToken(auth.url, admin.id, admin.secret),
      stop: async () => {
        await Promise.all(started.map((service) => service.stop()));
        await database.drop();
      },
    };
    return stack;
  } catch (error) {
    await Promise.all(started.map((service) => service.kill()));
    await database.drop();
    throw error;
  }
}

export async function clientToken(authUrl: string, id: string, secret: string, scope?: string): Promise<string> {
  const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: id, client_secret: secret });
  if (scope) form.set('scope', scope);
  const response = await fetch(`${authUrl}/oauth/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: form,
  });
  if (response.status !== 200) throw new Error(`token request failed: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { access_token: string }).access_token;
}
