import type { Page } from 'playwright-core';
import { waitFor } from '@custos/test-kit';
import { launch, unlabelledControls, type Browser } from './browser';
import { ADMIN, adminToken, startConsoleStack, type ConsoleStack } from './console-stack';
import { walkthroughPolicy } from './readme';

/**
 * The console's Decisions page (issue 24) on a real stack in chromium: a decision a pdp made is found by its id,
 * its record is shown, and — its solution recording every parameter — its event is explained again.
 */
const POLICY_ID = 'urn:policy:acme:mask-names';

let stack: ConsoleStack;
let browser: Browser;
let page: Page;
let token: string;
let decisionId: string;

async function pap(method: string, path: string, body?: string, type = 'application/xml'): Promise<globalThis.Response> {
  return fetch(`${stack.pap.url}${path}`, { method, headers: { Authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'Content-Type': type }) }, ...(body === undefined ? {} : { body }) });
}

beforeAll(async () => {
  stack = await startConsoleStack(1);
  browser = await launch();
  page = browser.page;
  token = await adminToken(stack);
  expect((await pap('POST', '/ws/policy', walkthroughPolicy())).status).toBe(201);
  expect((await pap('POST', `/ws/policy/${POLICY_ID}/deploy`)).status).toBe(200);
  // acme's records carry every parameter: the event is at hand for "explain this event again".
  const settings = await pap('PUT', '/ws/solutions/acme/settings', JSON.stringify({ recordParameters: { clear: ['*'] } }), 'application/json');
  expect(settings.status).toBe(200);
  const revision = settings.headers.get('policy-revision') ?? '0';
  const pdp = stack.pdps[0];
  if (pdp === undefined) throw new Error('no pdp');
  const answer = await fetch(`${pdp.url}/event`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', 'Min-Policy-Revision': revision },
    body: JSON.stringify({
      actionId: { urn: 'urn:action:acme:show-employee' },
      timestamp: Date.now(),
      parameters: [{ name: 'user', value: { value: { id: 'u2', name: { firstName: 'Mallory' } }, type: 'com.acme.User', isComplex: true } }],
    }),
  });
  const decided = (await answer.json()) as { id: { identifier: string }; eventAllowed: boolean };
  expect(decided.eventAllowed).toBe(false);
  decisionId = decided.id.identifier;
  await waitFor(async () => (await pap('GET', `/ws/decisions/${decisionId}`)).status === 200, { what: 'the decision record', timeoutMs: 20_000 });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
}, 60_000);

describe('the Decisions page', () => {
  test('signs in and lists the decision records', async () => {
    await page.goto(`${stack.pap.url}/console`);
    await page.getByLabel('Client id').fill(ADMIN.id);
    await page.getByLabel('Client secret').fill(ADMIN.secret);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Policies' }).waitFor();
    await page.getByRole('link', { name: 'Decisions' }).click();
    await page.getByRole('heading', { name: 'Decisions', level: 1 }).waitFor();
    await page.getByRole('link', { name: decisionId }).waitFor();
    expect(await unlabelledControls(page)).toEqual([]);
    await browser.screenshot('24-01-decisions-list');
  }, 60_000);

  test('finds the decision by its id and shows its record', async () => {
    await page.getByLabel('Decision id').fill(decisionId);
    await page.getByRole('button', { name: 'Search' }).click();
    const rows = page.locator('tbody tr');
    await waitFor(async () => (await rows.count()) === 1, { what: 'one row for the decision id' });
    await page.getByRole('link', { name: decisionId }).click();
    const detail = page.getByTestId('decision-detail');
    await detail.waitFor();
    const text = await detail.innerText();
    expect(text).toContain(`${decisionId}: inhibited`);
    expect(text).toContain('urn:action:acme:show-employee');
    expect(text).toContain(`decided by ${POLICY_ID}`);
    expect(text).toContain('"firstName":"Mallory"');
    expect(page.url()).toContain(`#/decisions/${encodeURIComponent(decisionId)}`);
    await browser.screenshot('24-02-decision-found-by-id');
  }, 60_000);

  test('explains the recorded event again with the policies deployed now', async () => {
    await page.getByRole('button', { name: 'Explain this event again' }).click();
    const again = page.getByTestId('explained-again');
    await again.waitFor();
    const text = await again.innerText();
    expect(text).toContain('Explained again now: inhibited');
    expect(text).toContain('Mallory is never shown');
    await browser.screenshot('24-03-decision-explained-again');
    expect(browser.problems).toEqual([]);
  }, 60_000);
});
