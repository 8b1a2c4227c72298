import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { ADMIN_ID, ADMIN_SECRET, call, startStack, TEST_NATS_URL, type Stack } from '@custos/test-kit';
import { inhibitAll } from './policies';

/** Screenshots for a person to look at; the folder is git-ignored. */
const SCREENSHOTS = path.join(__dirname, '..', 'screenshots');
const CHROMIUM = '/usr/bin/chromium';
const OPERATION_METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

/** What the page did that it must not: talk to another origin, break the policy, throw. */
interface PageTrouble {
  foreignRequests: string[];
  violations: string[];
  errors: string[];
}

function watch(page: Page, origin: string): PageTrouble {
  const trouble: PageTrouble = { foreignRequests: [], violations: [], errors: [] };
  page.on('request', (req) => {
    const url = req.url();
    if (!url.startsWith(`${origin}/`) && !url.startsWith('data:')) trouble.foreignRequests.push(url);
  });
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) trouble.violations.push(message.text());
  });
  page.on('pageerror', (error) => trouble.errors.push(error.message));
  return trouble;
}

async function operationCount(url: string): Promise<number> {
  const document = (await (await fetch(`${url}/openapi.json`)).json()) as { paths: Record<string, object> };
  return Object.values(document.paths).reduce((sum, item) => sum + Object.keys(item).filter((key) => OPERATION_METHODS.has(key)).length, 0);
}

/** Opens /docs and waits until Swagger UI shows the document's operations. */
async function openDocs(page: Page, url: string): Promise<number> {
  const expected = await operationCount(url);
  const response = await page.goto(`${url}/docs`);
  expect(response?.status()).toBe(200);
  await page.locator('.opblock').nth(expected - 1).waitFor({ timeout: 30_000 });
  expect(await page.locator('.opblock').count()).toBe(expected);
  return expected;
}

/** Puts credentials into the "Authorize" dialog for one scheme. */
async function authorize(page: Page, scheme: string, fill: (dialog: ReturnType<Page['locator']>) => Promise<void>): Promise<void> {
  await page.locator('.auth-wrapper .authorize').click();
  const dialog = page.locator('.auth-container').filter({ hasText: `${scheme} (http` });
  await fill(dialog);
  await dialog.locator('button.authorize').click();
  // Once applied, the dialog says so and masks the value.
  await dialog.locator('h6', { hasText: 'Authorized' }).waitFor();
  await dialog.locator('button.btn-done').click();
  await page.locator('.modal-ux').waitFor({ state: 'detached' });
}

/** Expands one operation, presses "Try it out" and "Execute", and returns the status and body shown. */
async function tryIt(page: Page, method: string, apiPath: string, beforeExecute?: (operation: ReturnType<Page['locator']>) => Promise<void>) {
  const operation = page.locator(`.opblock-${method}`).filter({ has: page.locator(`.opblock-summary-path[data-path="${apiPath}"]`) });
  await operation.locator('.opblock-summary').click();
  await operation.getByRole('button', { name: 'Try it out' }).click();
  if (beforeExecute) await beforeExecute(operation);
  await operation.getByRole('button', { name: 'Execute' }).click();
  const status = operation.locator('.live-responses-table .response .response-col_status').first();
  await status.waitFor({ timeout: 15_000 });
  const body = await operation.locator('.live-responses-table .response-col_description .microlight').first().innerText();
  return { status: (await status.innerText()).trim(), body };
}

describe('the API reference at /docs in a browser', () => {
  let stack: Stack;
  let token: string;
  let profile: string;
  let browser: BrowserContext;

  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    stack = await startStack({ natsUrl: TEST_NATS_URL, replicas: 1 });
    token = await stack.adminToken();
    const added = await call('POST', `${stack.pap.url}/ws/policy`, { token, xml: inhibitAll('acme', 'no-export', 'export') });
    expect(added.status).toBe(201);
    profile = mkdtempSync(path.join(tmpdir(), 'custos-docs-chromium-'));
    browser = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
      viewport: { width: 1280, height: 900 },
    });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
    await stack?.stop();
  }, 60_000);

  it.each([
    ['auth', 'POST', '/oauth/token'],
    ['pap', 'GET', '/ws/policy-ids'],
    ['pdp', 'POST', '/event/explain'],
  ] as const)('%s shows every operation of its document, from its own assets only', async (name, method, apiPath) => {
    const url = name === 'auth' ? stack.auth.url : name === 'pap' ? stack.pap.url : (stack.pdps[0]?.url ?? '');
    const page = await browser.newPage();
    const trouble = watch(page, url);
    try {
      await openDocs(page, url);
      const summary = page.locator(`.opblock-${method.toLowerCase()} .opblock-summary-path[data-path="${apiPath}"]`);
      await expect(summary.count()).resolves.toBe(1);
      await page.screenshot({ path: path.join(SCREENSHOTS, `${name}-docs.png`) });
      expect(trouble).toEqual({ foreignRequests: [], violations: [], errors: [] });
    } finally {
      await page.close();
    }
  }, 60_000);

  it('tries GET /ws/policy-ids of pap with a bearer token', async () => {
    const page = await browser.newPage();
    const trouble = watch(page, stack.pap.url);
    try {
      await openDocs(page, stack.pap.url);
      const anonymous = await tryIt(page, 'get', '/ws/policy-ids');
      expect(anonymous.status).toBe('401');
      await page.reload();
      await openDocs(page, stack.pap.url);
      await authorize(page, 'bearer', (dialog) => dialog.locator('input').fill(token));
      const answer = await tryIt(page, 'get', '/ws/policy-ids');
      expect(answer.status).toBe('200');
      expect(JSON.parse(answer.body)).toEqual([{ identifier: 'urn:policy:acme:no-export' }]);
      await page.screenshot({ path: path.join(SCREENSHOTS, 'pap-try-it.png'), fullPage: true });
      expect(trouble).toEqual({ foreignRequests: [], violations: [], errors: [] });
    } finally {
      await page.close();
    }
  }, 90_000);

  it('tries the token endpoint of auth with Basic client authentication', async () => {
    const page = await browser.newPage();
    const trouble = watch(page, stack.auth.url);
    try {
      await openDocs(page, stack.auth.url);
      await authorize(page, 'basic', async (dialog) => {
        await dialog.locator('input').nth(0).fill(ADMIN_ID);
        await dialog.locator('input').nth(1).fill(ADMIN_SECRET);
      });
      let sent: string | null = null;
      let authorization: string | undefined;
      page.on('request', (req) => {
        if (req.url() !== `${stack.auth.url}/oauth/token`) return;
        sent = req.postData();
        authorization = req.headers().authorization;
      });
      // The form starts with the grant type filled in; a reader using Basic empties the other fields.
      const answer = await tryIt(page, 'post', '/oauth/token', async (operation) => {
        await expect(operation.locator('tr[data-property-name="grant_type"] input[type=text]').inputValue()).resolves.toBe('client_credentials');
        for (const name of ['client_id', 'client_secret', 'scope']) await operation.locator(`tr[data-property-name="${name}"] input[type=text]`).fill('');
      });
      // The secret travels only in the Basic header; emptied fields count as absent (RFC 6749 §3.1).
      const form = new URLSearchParams(sent ?? '');
      expect(form.get('grant_type')).toBe('client_credentials');
      expect(form.get('client_secret') ?? '').toBe('');
      expect(authorization).toBe(`Basic ${Buffer.from(`${ADMIN_ID}:${ADMIN_SECRET}`).toString('base64')}`);
      expect(answer).toEqual({ status: '200', body: expect.stringContaining('access_token') });
      const issued = JSON.parse(answer.body) as { token_type: string; access_token: string };
      expect(issued.token_type).toBe('Bearer');
      expect(issued.access_token.split('.')).toHaveLength(3);
      await page.screenshot({ path: path.join(SCREENSHOTS, 'auth-try-it.png'), fullPage: true });
      expect(trouble).toEqual({ foreignRequests: [], violations: [], errors: [] });
    } finally {
      await page.close();
    }
  }, 90_000);
});
