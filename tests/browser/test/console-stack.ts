import type { Page } from 'playwright-core';
import {
  createTestDatabase,
  freePort,
  startService,
  TEST_NATS_URL,
  uniqueNatsPrefix,
  type RunningService,
  type TestDatabase,
} from '@custos/test-kit';
import { launch, type Browser } from './browser';

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

/** What a browser test file works with: its stack, a chromium with its page, and the administrator's token. */
export interface ConsoleSuite {
  readonly stack: ConsoleStack;
  readonly browser: Browser;
  /** The browser's first page. */
  readonly page: Page;
  /** A token of the administrator client. */
  readonly token: string;
  /** A request to pap's API as the administrator, for what a test sets up or checks without clicking. */
  pap(method: string, path: string, body?: string, type?: string): Promise<Response>;
  /** A fresh load of the console (the token lives in the page's memory only) and a sign-in as the administrator. */
  signIn(): Promise<void>;
}

/**
 * The set-up of a browser test file: before its tests, a stack of `replicas` pdps, a chromium and an administrator
 * token; after them, all of it stopped. The fields are filled when the tests run, so read them inside tests and
 * hooks, not at the file's top level.
 */
export function useConsoleSuite(replicas: number): ConsoleSuite {
  let stack: ConsoleStack | undefined;
  let browser: Browser | undefined;
  let token: string | undefined;
  const started = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`the console suite has no ${what} yet: read it inside a test or hook`);
    return value;
  };
  const suite: ConsoleSuite = {
    get stack() {
      return started(stack, 'stack');
    },
    get browser() {
      return started(browser, 'browser');
    },
    get page() {
      return started(browser, 'browser').page;
    },
    get token() {
      return started(token, 'token');
    },
    pap: (method, path, body, type = 'application/xml') =>
      fetch(`${suite.stack.pap.url}${path}`, {
        method,
        headers: { Authorization: `Bearer ${suite.token}`, ...(body === undefined ? {} : { 'Content-Type': type }) },
        ...(body === undefined ? {} : { body }),
      }),
    signIn: async () => {
      const { page } = suite;
      await page.goto(`${suite.stack.pap.url}/console`);
      await page.reload();
      await page.getByLabel('Client id').fill(ADMIN.id);
      await page.getByLabel('Client secret').fill(ADMIN.secret);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: 'Policies' }).waitFor();
    },
  };
  beforeAll(async () => {
    stack = await startConsoleStack(replicas);
    browser = await launch();
    token = await adminToken(stack);
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  }, 60_000);
  return suite;
}
