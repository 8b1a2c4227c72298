import type { Page } from 'playwright-core';
import { launch, type Browser } from './browser';
import { ADMIN, adminToken, startConsoleStack, type ConsoleStack } from './console-stack';
import { walkthroughPolicy } from './readme';

/**
 * The console's Audit page (issue 24, item 3) on a real auth and pap: an accepted change made through pap's API and
 * a refused one both show, with who, what and why; the outcome filter narrows the table.
 */
const POLICY_ID = 'urn:policy:acme:mask-names';

let stack: ConsoleStack;
let browser: Browser;
let page: Page;
let token: string;

beforeAll(async () => {
  stack = await startConsoleStack(0);
  browser = await launch();
  page = browser.page;
  token = await adminToken(stack);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
}, 60_000);

const pap = (method: string, path: string, body?: string) =>
  fetch(`${stack.pap.url}${path}`, { method, headers: { Authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'Content-Type': 'application/xml' }) }, ...(body === undefined ? {} : { body }) });

test('shows accepted and refused changes, and filters them by outcome', async () => {
  expect((await pap('POST', '/ws/policy', walkthroughPolicy())).status).toBe(201);
  expect((await pap('POST', '/ws/policy', walkthroughPolicy())).status).toBe(409);

  await page.goto(`${stack.pap.url}/console`);
  await page.getByLabel('Client id').fill(ADMIN.id);
  await page.getByLabel('Client secret').fill(ADMIN.secret);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Policies' }).waitFor();
  await page.getByRole('link', { name: 'Audit' }).click();
  await page.getByRole('heading', { name: 'Audit' }).waitFor();

  const refused = page.getByRole('row', { name: /refused 409/ });
  await refused.waitFor();
  expect(await refused.innerText()).toContain(`policy.add ${POLICY_ID}`);
  expect(await refused.innerText()).toContain('conflict: ');
  const accepted = page.getByRole('row', { name: /accepted 201/ });
  expect(await accepted.innerText()).toContain(ADMIN.id);
  expect(await accepted.innerText()).toContain(`policy.add ${POLICY_ID}`);
  await browser.screenshot('24-03-audit-page');

  await page.getByLabel('Outcome').selectOption('refused');
  await page.getByRole('button', { name: 'Filter' }).click();
  await page.getByRole('row', { name: /accepted 201/ }).waitFor({ state: 'detached' });
  // The filtered page replaces the table; its rows come with the answer, after the accepted row is gone.
  await page.getByRole('row', { name: /refused 409/ }).waitFor();
  expect(await page.getByRole('row', { name: /refused 409/ }).count()).toBe(1);
  await browser.screenshot('24-03-audit-page-refused');
}, 90_000);
