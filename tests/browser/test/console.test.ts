import { copyFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { repoRoot, waitFor } from '@custos/test-kit';
import { launch, unlabelledControls, type Browser } from './browser';
import { ADMIN, startConsoleStack, type ConsoleStack } from './console-stack';
import { walkthroughPolicy } from './readme';

const POLICY_ID = 'urn:policy:acme:mask-names';
const PEP_ID = 'urn:component:acme:pep:hr-portal';
/** The README's mistake-free policy, and the same with `value` misspelt on the line that names Mallory. */
const GOOD = walkthroughPolicy();
const TYPO = GOOD.replace('<constant:string value="Mallory"/>', '<constant:string valeu="Mallory"/>');
const TYPO_LINE = TYPO.split('\n').findIndex((line) => line.includes('valeu')) + 1;

let stack: ConsoleStack;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  stack = await startConsoleStack(2);
  browser = await launch();
  page = browser.page;
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
}, 60_000);

/** The text of the editor line that carries an error mark, and every line's text, 1-based. */
async function markedLines(p: Page): Promise<number[]> {
  return p.evaluate(() =>
    [...document.querySelectorAll('.cm-content .cm-line')]
      .map((line, index) => (line.querySelector('.cm-lintRange-error') ? index + 1 : 0))
      .filter((n) => n > 0),
  );
}

async function replaceEditorText(p: Page, text: string): Promise<void> {
  await p.locator('.cm-content').click();
  await p.keyboard.press('Control+A');
  // One input event, as a paste: the editor's tag auto-closing reacts to typed `>` only.
  await p.keyboard.insertText(text);
}

async function runMallory(p: Page): Promise<void> {
  await p.getByRole('link', { name: 'Playground' }).click();
  await p.getByLabel('PEP interface').selectOption({ label: `urn:action:acme:show-employee (${PEP_ID})` });
  await p.getByLabel('Value (JSON, or plain text)').fill('{ "id": "u2", "name": { "firstName": "Mallory" } }');
  await p.getByRole('button', { name: 'Run the event' }).click();
}

describe('the web console on a real stack', () => {
  test('serves its page under a CSP, and signs in with the keyboard alone', async () => {
    const response = await page.goto(`${stack.pap.url}/console`);
    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-security-policy']).toContain("script-src 'self'");
    await page.getByRole('heading', { name: 'Sign in to the Custos console' }).waitFor();
    expect(await unlabelledControls(page)).toEqual([]);
    await browser.screenshot('01-sign-in');

    // A wrong secret is refused with auth's words, and nothing is kept.
    await page.getByLabel('Client id').fill(ADMIN.id);
    await page.getByLabel('Client secret').fill('not-the-secret');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').waitFor();
    expect(await page.getByRole('alert').innerText()).toMatch(/client/i);

    await page.reload();
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('client-id');
    await page.keyboard.type(ADMIN.id);
    await page.keyboard.press('Tab');
    await page.keyboard.type(ADMIN.secret);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Policies' }).waitFor();
    expect(await page.getByText(`Signed in as ${ADMIN.id}`).count()).toBe(1);
  }, 60_000);

  test('registers the walk-through PEP from the form', async () => {
    await page.getByRole('link', { name: 'Components' }).click();
    await page.getByRole('heading', { name: 'Register a component' }).waitFor();
    expect(await unlabelledControls(page)).toEqual([]);
    await page.getByLabel('Type', { exact: true }).selectOption('PEP');
    await page.getByLabel('Solution').fill('acme');
    await page.getByLabel('Name', { exact: true }).fill('hr-portal');
    await page.getByLabel('URLs (one per line)').fill('http://hr.acme.internal:9000/pep');
    await page.getByLabel('Method name').fill('urn:action:acme:show-employee');
    await page.getByLabel('Return type').fill('void');
    await page.getByLabel('Description', { exact: true }).fill('an employee page');
    await page.getByLabel('Event platform').fill('web');
    await page.getByLabel('Event context').fill('hr');
    await page.getByLabel('Event action').fill('show-employee');
    await page.getByLabel(/^Parameters, one per line/).fill('user: com.acme.User — the employee');
    await page.getByRole('button', { name: 'Register', exact: true }).click();
    await page.getByText(`Registered ${PEP_ID}`).waitFor();

    // pap holds what the README's curl registers.
    const token = await adminToken();
    const stored = await fetch(`${stack.pap.url}/ws/component/${PEP_ID}`, { headers: { Authorization: `Bearer ${token}` } });
    expect(await stored.json()).toEqual({
      id: { componentType: 'PEP', identifier: PEP_ID },
      urls: ['http://hr.acme.internal:9000/pep'],
      componentInterfaces: [
        {
          type: 'PepInterfaceDescription',
          event: { platform: 'web', context: 'hr', action: 'show-employee' },
          preventive: true,
          methodName: 'urn:action:acme:show-employee',
          returnType: 'void',
          description: 'an employee page',
          parameters: [{ name: 'user', description: 'the employee', type: 'com.acme.User' }],
        },
      ],
    });
    await page.getByRole('heading', { name: PEP_ID }).waitFor();
    await browser.screenshot('02-components');
  }, 60_000);

  test('shows a mistake inline at its line as the user types, then adds the fixed policy', async () => {
    await page.getByRole('link', { name: 'Policies' }).click();
    await page.getByRole('link', { name: 'New policy' }).click();
    await page.locator('.cm-content').waitFor();
    expect(await unlabelledControls(page)).toEqual([]);

    await replaceEditorText(page, TYPO);
    await page.getByText(`line ${TYPO_LINE}:`).first().waitFor();
    expect(await page.getByTestId('check').innerText()).toContain('unknown attribute `valeu` on `constant:string`');
    await waitFor(async () => (await markedLines(page)).length > 0, { what: 'an inline error mark' });
    expect(await markedLines(page)).toEqual([TYPO_LINE]);
    await browser.screenshot('03-policy-mistake');

    await replaceEditorText(page, GOOD);
    await page.getByText('pap accepts this policy.').waitFor();
    expect(await markedLines(page)).toEqual([]);
    await page.getByRole('button', { name: 'Add policy' }).click();
    await page.getByText(`Added ${POLICY_ID}; it is not deployed yet`).waitFor();
    await page.getByRole('link', { name: POLICY_ID }).waitFor();
  }, 60_000);

  test('deploys it and shows when every replica has it', async () => {
    await page.getByRole('button', { name: `Deploy ${POLICY_ID}` }).click();
    // The PEP does not travel to the pdps, so the policy's deploy is the first change of the deployed set.
    await page.getByText(`Deployed ${POLICY_ID} at revision 1`).waitFor();
    await page.getByText('every replica (2) has it').waitFor({ timeout: 15_000 });
    expect(await page.getByRole('row', { name: new RegExp(POLICY_ID) }).innerText()).toContain('deployed');
    await browser.screenshot('04-policies');
  }, 60_000);

  test('the playground shows Mallory inhibited with the branch taken, and Ann masked', async () => {
    await runMallory(page);
    const outcome = page.getByTestId('outcome');
    await outcome.getByRole('heading', { name: 'The event is inhibited' }).waitFor();
    const tree = await outcome.innerText();
    expect(tree).toContain(`${POLICY_ID} · mechanism #1 (urn:action:acme:show-employee)`);
    expect(tree).toMatch(/branch taken\s*if #1/);
    expect(tree).toMatch(/condition #1\s*true/);
    expect(tree).toContain('Mallory is never shown');
    expect(await unlabelledControls(page)).toEqual([]);
    await browser.screenshot('05-playground-inhibited');

    await page.getByLabel('Value (JSON, or plain text)').fill('{ "id": "u1", "name": { "firstName": "Ann" } }');
    await page.getByRole('button', { name: 'Run the event' }).click();
    await outcome.getByRole('heading', { name: 'The event is allowed' }).waitFor();
    const allowed = await outcome.innerText();
    expect(allowed).toMatch(/branch taken\s*else/);
    expect(allowed).toContain('modify user at $.name.firstName');
    // The event after the modifiers, as the PEP SDK applies them: the first name with the suffix appended.
    expect(allowed).toContain('"firstName": "Ann (masked)"');
    await browser.screenshot('06-playground-allowed');
  }, 60_000);

  test('revokes it with the keyboard, and the same event is allowed again', async () => {
    await page.getByRole('link', { name: 'Policies' }).click();
    // From the search field, Tab reaches the row's Revoke button, and Enter presses it.
    await page.getByLabel('Search').focus();
    const revokeLabel = `Revoke ${POLICY_ID}`;
    await waitFor(
      async () => {
        await page.keyboard.press('Tab');
        return page.evaluate((label) => document.activeElement?.getAttribute('aria-label') === label, revokeLabel);
      },
      { what: 'the Revoke button focused by Tab', timeoutMs: 5_000 },
    );
    await page.keyboard.press('Enter');
    await page.getByText(`Revoked ${POLICY_ID} at revision 2`).waitFor();
    await runMallory(page);
    const outcome = page.getByTestId('outcome');
    await outcome.getByRole('heading', { name: 'The event is allowed' }).waitFor();
    expect(await outcome.innerText()).toContain('none matched: the default decided');
  }, 60_000);

  test('lists every replica with its revision', async () => {
    await page.getByRole('link', { name: 'Replicas' }).click();
    for (const replica of ['replica-1', 'replica-2']) {
      const row = page.getByRole('row', { name: new RegExp(replica) });
      await waitFor(async () => /\b2\b[\s\S]*up to date/.test(await row.innerText()), { what: `${replica} at revision 2`, timeoutMs: 15_000 });
    }
    await browser.screenshot('07-replicas');
  }, 60_000);

  test('replaces a policy after showing the difference, and removes it after a confirmation', async () => {
    await page.getByRole('link', { name: 'Policies' }).click();
    await page.getByRole('link', { name: POLICY_ID }).click();
    await page.getByText('pap accepts this policy.').waitFor();
    await replaceEditorText(page, GOOD.replace('Mallory is never shown', 'Mallory stays hidden'));
    await page.getByText('pap accepts this policy.').waitFor();
    await page.getByRole('button', { name: 'Review changes…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Replace with this text?' });
    await dialog.waitFor();
    expect(await dialog.locator('.cm-deletedChunk').innerText()).toContain('Mallory is never shown');
    expect(await dialog.locator('.cm-changedLine').innerText()).toContain('Mallory stays hidden');
    await browser.screenshot('08-replace-diff');
    await dialog.getByRole('button', { name: 'Replace' }).click();
    await page.getByText(`Replaced ${POLICY_ID}`).waitFor();
    const token = await adminToken();
    const stored = await fetch(`${stack.pap.url}/ws/policy/${POLICY_ID}`, { headers: { Authorization: `Bearer ${token}`, Accept: 'application/xml' } });
    expect(await stored.text()).toContain('Mallory stays hidden');

    await page.getByRole('button', { name: `Remove ${POLICY_ID}` }).click();
    const confirm = page.getByRole('dialog', { name: 'Remove policy?' });
    await confirm.waitFor();
    // Escape cancels, as for every modal dialog.
    await page.keyboard.press('Escape');
    await confirm.waitFor({ state: 'detached' });
    expect(await page.getByRole('link', { name: POLICY_ID }).count()).toBe(1);
    await page.getByRole('button', { name: `Remove ${POLICY_ID}` }).click();
    await confirm.getByRole('button', { name: 'Remove' }).click();
    await page.getByText(`Removed ${POLICY_ID}`).waitFor();
    await page.getByText('No policy yet.').waitFor();
  }, 60_000);

  test('adds and deploys a timer from its template, and lists it with its schedule', async () => {
    await page.getByRole('link', { name: 'Timers' }).click();
    await page.getByRole('link', { name: 'New timer' }).click();
    await page.getByText('pap accepts this timer.').waitFor();
    await page.getByRole('button', { name: 'Add timer' }).click();
    await page.getByText('Added urn:timer:acme:nightly; it is not deployed yet').waitFor();
    const row = page.getByRole('row', { name: /urn:timer:acme:nightly/ });
    expect(await row.innerText()).toContain('0 0 2 * * ?');
    await page.getByRole('button', { name: 'Deploy urn:timer:acme:nightly' }).click();
    await page.getByText('every replica (2) has it').waitFor({ timeout: 15_000 });
    await waitFor(async () => !(await row.innerText()).includes('not deployed'), { what: 'the timer shown deployed' });
    expect(await row.innerText()).toContain('deployed');
    await browser.screenshot('09-timers');
  }, 60_000);

  test('deploys a selection of timers together, as one revision', async () => {
    const token = await adminToken();
    const ids = ['urn:timer:acme:early', 'urn:timer:acme:late'];
    for (const [index, id] of ids.entries()) {
      const xml = `<timer xmlns="http://www.mydata-control.de/4.0/mydataLanguageTimer" id="${id}" cron="0 0 ${index + 3} * * ?"><event action="urn:action:acme:tick"/></timer>`;
      const added = await fetch(`${stack.pap.url}/ws/timer`, { method: 'POST', headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/xml' }, body: xml });
      expect(added.status).toBe(201);
    }
    const revisionOf = async () =>
      ((await (await fetch(`${stack.pap.url}/ws/replicas`, { headers: { Authorization: `Bearer ${token}` } })).json()) as { revision: number }).revision;
    const before = await revisionOf();
    // Away and back, so the list is read again.
    await page.getByRole('link', { name: 'Policies' }).click();
    await page.getByRole('link', { name: 'Timers' }).click();
    for (const id of ids) await page.getByRole('checkbox', { name: `Select ${id}` }).check();
    await page.getByRole('button', { name: 'Deploy selected (2)' }).click();
    await page.getByText(`Deployed 2 timers at once at revision ${before + 1}`).waitFor();
    await page.getByText('every replica (2) has it').waitFor({ timeout: 15_000 });
    expect(await revisionOf()).toBe(before + 1);
    for (const id of ids) {
      const row = page.getByRole('row', { name: new RegExp(id) });
      await waitFor(async () => !(await row.innerText()).includes('not deployed'), { what: `${id} shown deployed` });
    }
    expect(await page.getByRole('button', { name: 'Deploy selected (0)' }).isDisabled()).toBe(true);
  }, 60_000);

  test('warns after registering a PIP the pdps would not call by default, and not after one they would', async () => {
    await page.getByRole('link', { name: 'Components' }).click();
    await page.getByRole('heading', { name: 'Register a component' }).waitFor();
    // The loopback URL second, so the warning must name it by its own index.
    await registerPip(page, 'roles', 'https://9.9.9.9/roles\nhttp://127.0.0.1:9/roles');
    const warnings = page.getByRole('region', { name: `Registered ${PIP_ID('roles')}, with a warning` });
    await warnings.waitFor();
    // Inside the live region, so that screen readers announce it, and a warning, not an error.
    expect(await page.getByRole('status').filter({ has: warnings }).count()).toBe(1);
    expect(await page.getByRole('alert').count()).toBe(0);
    const items = await warnings.getByRole('listitem').allInnerTexts();
    expect(items).toHaveLength(1);
    expect(items[0]).toContain('Warning at urls[1] (http://127.0.0.1:9/roles)');
    expect(items[0]).toContain('`127.0.0.1` is not a public address');
    expect(await warnings.innerText()).toContain('PDP_CALL_ALLOW');
    // Registered all the same.
    await page.getByRole('heading', { name: `PIP ${PIP_ID('roles')}`, exact: true }).waitFor();
    await browser.screenshot('09b-component-warning');

    // A public address (TEST-NET addresses are not public to the egress rules, so a routable one) draws none, and the
    // last registration's warnings go.
    await registerPip(page, 'prices', 'https://9.9.9.9/prices');
    await page.getByRole('heading', { name: `PIP ${PIP_ID('prices')}`, exact: true }).waitFor();
    expect(await page.getByRole('region', { name: /warning/ }).count()).toBe(0);
    expect(await page.locator('.warnings').count()).toBe(0);

    // Once more with the warning: its button is the next stop after Register, and dismissing it hands the focus back.
    await registerPip(page, 'roles', 'http://127.0.0.1:9/roles');
    await warnings.waitFor();
    expect(await warnings.getByRole('listitem').allInnerTexts()).toEqual([expect.stringContaining('Warning at urls[0] (http://127.0.0.1:9/roles)')]);
    await page.getByRole('button', { name: 'Register', exact: true }).focus();
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Dismiss the warnings');
    await page.keyboard.press('Enter');
    await warnings.waitFor({ state: 'detached' });
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Register');
  }, 60_000);

  test('fits a narrow window without sideways scrolling', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    // Each page with what it shows once loaded: the timer is the one document left, the PEP the one component.
    const pages: Array<[string, string]> = [
      ['Timers', 'urn:timer:acme:nightly'],
      ['Components', PEP_ID],
      ['Playground', 'Run the event'],
    ];
    for (const [name, loaded] of pages) {
      await page.getByRole('link', { name }).click();
      await page.getByRole('heading', { name, exact: true, level: 1 }).waitFor();
      await page.getByText(loaded).first().waitFor();
      // Wide tables scroll inside their own box (.table-wrap); the page itself must not.
      const overflow = await page.evaluate(() =>
        [...document.querySelectorAll('body *')]
          .filter((el) => el.closest('.table-wrap') === null && el.getBoundingClientRect().right > window.innerWidth + 0.5)
          .map((el) => `${el.tagName}.${el.className}`),
      );
      expect({ name, overflow }).toEqual({ name, overflow: [] });
      await browser.screenshot(`10-narrow-${name.toLowerCase()}`);
    }
    await page.setViewportSize({ width: 1280, height: 800 });
  }, 60_000);

  test('no page logged an error or broke its CSP', () => {
    // The browser logs every 4xx answer: the wrong secret's 401 was asked for. The live checks of the mistake answer
    // 200 with their diagnostics, so they log nothing.
    const expected = /^Failed to load resource: the server responded with a status of 401 /;
    expect(browser.problems.filter((p) => !expected.test(p))).toEqual([]);
  });

  test('takes the README screenshot: the playground explaining an inhibited event', async () => {
    await runMallory(page);
    await page.getByTestId('outcome').getByRole('heading', { name: 'The event is allowed' }).waitFor();
    await page.getByRole('link', { name: 'Policies' }).click();
    await page.getByRole('link', { name: 'New policy' }).click();
    await page.getByRole('button', { name: 'Add policy' }).click();
    await page.getByText('Added urn:policy:acme:new-policy; it is not deployed yet').waitFor();
    await page.getByRole('button', { name: 'Deploy urn:policy:acme:new-policy' }).click();
    await page.getByText('every replica (2) has it').waitFor({ timeout: 15_000 });
    await runMallory(page);
    await page.getByTestId('outcome').getByRole('heading', { name: 'The event is inhibited' }).waitFor();
    const file = await browser.screenshot('readme-console');
    // The committed copy changes only when asked for, so a test run leaves the working tree as it was.
    if (process.env.UPDATE_README_SCREENSHOT === '1') {
      const images = path.join(repoRoot(), 'docs', 'images');
      mkdirSync(images, { recursive: true });
      copyFileSync(file, path.join(images, 'console.png'));
    }
  }, 60_000);
});

const PIP_ID = (name: string) => `urn:component:acme:pip:${name}`;

/** A PIP of one interface, through the form; nothing calls it, since no policy names it. */
async function registerPip(p: Page, name: string, urls: string): Promise<void> {
  await p.getByLabel('Type', { exact: true }).selectOption('PIP');
  await p.getByLabel('Solution').fill('acme');
  await p.getByLabel('Name', { exact: true }).fill(name);
  await p.getByLabel('URLs (one per line)').fill(urls);
  await p.getByLabel('Method name').fill(`urn:info:acme:${name}`);
  await p.getByLabel('Return type').fill('java.lang.String');
  await p.getByRole('button', { name: 'Register', exact: true }).click();
  await p.getByText(`Registered ${PIP_ID(name)}`, { exact: true }).waitFor();
}

async function adminToken(): Promise<string> {
  const response = await fetch(`${stack.auth.url}/oauth/token`, {
    method: 'POST',
    headers: { Authorization: `Basic ${Buffer.from(`${ADMIN.id}:${ADMIN.secret}`).toString('base64')}`, 'Content-Type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials',
  });
  return ((await response.json()) as { access_token: string }).access_token;
}
