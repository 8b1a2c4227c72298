import { copyFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { repoRoot, waitFor } from '@custos/test-kit';
import { unlabelledControls } from './browser';
import { markedLines, replaceEditorText } from './console-editor';
import { ADMIN, useConsoleSuite } from './console-stack';
import { walkthroughPolicy } from './readme';

const POLICY_ID = 'urn:policy:acme:mask-names';
const PEP_ID = 'urn:component:acme:pep:hr-portal';
/** The README's mistake-free policy, and the same with `value` misspelt on the line that names Mallory. */
const GOOD = walkthroughPolicy();
const TYPO = GOOD.replace('<constant:string value="Mallory"/>', '<constant:string valeu="Mallory"/>');
const TYPO_LINE = TYPO.split('\n').findIndex((line) => line.includes('valeu')) + 1;

const suite = useConsoleSuite(2);

async function runMallory(p: Page): Promise<void> {
  await p.getByRole('link', { name: 'Playground' }).click();
  await p.getByLabel('PEP interface').selectOption({ label: `urn:action:acme:show-employee (${PEP_ID})` });
  await p.getByLabel('Value (JSON, or plain text)').fill('{ "id": "u2", "name": { "firstName": "Mallory" } }');
  await p.getByRole('button', { name: 'Run the event' }).click();
}

describe('the web console on a real stack', () => {
  test('serves its page under a CSP, and signs in with the keyboard alone', async () => {
    const response = await suite.page.goto(`${suite.stack.pap.url}/console`);
    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-security-policy']).toContain("script-src 'self'");
    await suite.page.getByRole('heading', { name: 'Sign in to the Custos console' }).waitFor();
    expect(await unlabelledControls(suite.page)).toEqual([]);
    await suite.browser.screenshot('01-sign-in');

    // A wrong secret is refused with auth's words, and nothing is kept.
    await suite.page.getByLabel('Client id').fill(ADMIN.id);
    await suite.page.getByLabel('Client secret').fill('not-the-secret');
    await suite.page.getByRole('button', { name: 'Sign in' }).click();
    await suite.page.getByRole('alert').waitFor();
    expect(await suite.page.getByRole('alert').innerText()).toMatch(/client/i);

    await suite.page.reload();
    await suite.page.keyboard.press('Tab');
    expect(await suite.page.evaluate(() => document.activeElement?.id)).toBe('client-id');
    await suite.page.keyboard.type(ADMIN.id);
    await suite.page.keyboard.press('Tab');
    await suite.page.keyboard.type(ADMIN.secret);
    await suite.page.keyboard.press('Enter');
    await suite.page.getByRole('heading', { name: 'Policies' }).waitFor();
    expect(await suite.page.getByText(`Signed in as ${ADMIN.id}`).count()).toBe(1);
  }, 60_000);

  test('registers the walk-through PEP from the form', async () => {
    await suite.page.getByRole('link', { name: 'Components' }).click();
    await suite.page.getByRole('heading', { name: 'Register a component' }).waitFor();
    expect(await unlabelledControls(suite.page)).toEqual([]);
    await suite.page.getByLabel('Type', { exact: true }).selectOption('PEP');
    await suite.page.getByLabel('Solution').fill('acme');
    await suite.page.getByLabel('Name', { exact: true }).fill('hr-portal');
    await suite.page.getByLabel('URLs (one per line)').fill('http://hr.acme.internal:9000/pep');
    await suite.page.getByLabel('Method name').fill('urn:action:acme:show-employee');
    await suite.page.getByLabel('Return type').fill('void');
    await suite.page.getByLabel('Description', { exact: true }).fill('an employee page');
    await suite.page.getByLabel('Event platform').fill('web');
    await suite.page.getByLabel('Event context').fill('hr');
    await suite.page.getByLabel('Event action').fill('show-employee');
    await suite.page.getByLabel(/^Parameters, one per line/).fill('user: com.acme.User — the employee');
    await suite.page.getByRole('button', { name: 'Register', exact: true }).click();
    await suite.page.getByText(`Registered ${PEP_ID}`).waitFor();

    // pap holds what the README's curl registers.
    const stored = await suite.pap('GET', `/ws/component/${PEP_ID}`);
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
    await suite.page.getByRole('heading', { name: PEP_ID }).waitFor();
    await suite.browser.screenshot('02-components');
  }, 60_000);

  test('shows a mistake inline at its line as the user types, then adds the fixed policy', async () => {
    await suite.page.getByRole('link', { name: 'Policies' }).click();
    await suite.page.getByRole('link', { name: 'New policy' }).click();
    await suite.page.locator('.cm-content').waitFor();
    expect(await unlabelledControls(suite.page)).toEqual([]);

    await replaceEditorText(suite.page, TYPO);
    await suite.page.getByText(`line ${TYPO_LINE}:`).first().waitFor();
    expect(await suite.page.getByTestId('check').innerText()).toContain('unknown attribute `valeu` on `constant:string`');
    await waitFor(async () => (await markedLines(suite.page)).length > 0, { what: 'an inline error mark' });
    expect(await markedLines(suite.page)).toEqual([TYPO_LINE]);
    await suite.browser.screenshot('03-policy-mistake');

    await replaceEditorText(suite.page, GOOD);
    await suite.page.getByText('pap accepts this policy.').waitFor();
    expect(await markedLines(suite.page)).toEqual([]);
    await suite.page.getByRole('button', { name: 'Add policy' }).click();
    await suite.page.getByText(`Added ${POLICY_ID}; it is not deployed yet`).waitFor();
    await suite.page.getByRole('link', { name: POLICY_ID }).waitFor();
  }, 60_000);

  test('deploys it and shows when every replica has it', async () => {
    await suite.page.getByRole('button', { name: `Deploy ${POLICY_ID}` }).click();
    // The PEP does not travel to the pdps, so the policy's deploy is the first change of the deployed set.
    await suite.page.getByText(`Deployed ${POLICY_ID} at revision 1`).waitFor();
    await suite.page.getByText('every replica (2) has it').waitFor({ timeout: 15_000 });
    expect(await suite.page.getByRole('row', { name: new RegExp(POLICY_ID) }).innerText()).toContain('deployed');
    await suite.browser.screenshot('04-policies');
  }, 60_000);

  test('the playground shows Mallory inhibited with the branch taken, and Ann masked', async () => {
    await runMallory(suite.page);
    const outcome = suite.page.getByTestId('outcome');
    await outcome.getByRole('heading', { name: 'The event is inhibited' }).waitFor();
    const tree = await outcome.innerText();
    expect(tree).toContain(`${POLICY_ID} · mechanism #1 (urn:action:acme:show-employee)`);
    expect(tree).toMatch(/branch taken\s*if #1/);
    expect(tree).toMatch(/condition #1\s*true/);
    expect(tree).toContain('Mallory is never shown');
    expect(await unlabelledControls(suite.page)).toEqual([]);
    await suite.browser.screenshot('05-playground-inhibited');

    await suite.page.getByLabel('Value (JSON, or plain text)').fill('{ "id": "u1", "name": { "firstName": "Ann" } }');
    await suite.page.getByRole('button', { name: 'Run the event' }).click();
    await outcome.getByRole('heading', { name: 'The event is allowed' }).waitFor();
    const allowed = await outcome.innerText();
    expect(allowed).toMatch(/branch taken\s*else/);
    expect(allowed).toContain('modify user at $.name.firstName');
    // The event after the modifiers, as the PEP SDK applies them: the first name with the suffix appended.
    expect(allowed).toContain('"firstName": "Ann (masked)"');
    await suite.browser.screenshot('06-playground-allowed');
  }, 60_000);

  test('revokes it with the keyboard, and the same event is allowed again', async () => {
    await suite.page.getByRole('link', { name: 'Policies' }).click();
    // From the search field, Tab reaches the row's Revoke button, and Enter presses it.
    await suite.page.getByLabel('Search').focus();
    const revokeLabel = `Revoke ${POLICY_ID}`;
    await waitFor(
      async () => {
        await suite.page.keyboard.press('Tab');
        return suite.page.evaluate((label) => document.activeElement?.getAttribute('aria-label') === label, revokeLabel);
      },
      { what: 'the Revoke button focused by Tab', timeoutMs: 5_000 },
    );
    await suite.page.keyboard.press('Enter');
    await suite.page.getByText(`Revoked ${POLICY_ID} at revision 2`).waitFor();
    await runMallory(suite.page);
    const outcome = suite.page.getByTestId('outcome');
    await outcome.getByRole('heading', { name: 'The event is allowed' }).waitFor();
    expect(await outcome.innerText()).toContain('none matched: the default decided');
  }, 60_000);

  test('lists every replica with its revision', async () => {
    await suite.page.getByRole('link', { name: 'Replicas' }).click();
    for (const replica of ['replica-1', 'replica-2']) {
      const row = suite.page.getByRole('row', { name: new RegExp(replica) });
      await waitFor(async () => /\b2\b[\s\S]*up to date/.test(await row.innerText()), { what: `${replica} at revision 2`, timeoutMs: 15_000 });
    }
    await suite.browser.screenshot('07-replicas');
  }, 60_000);

  test('replaces a policy after showing the difference, and removes it after a confirmation', async () => {
    await suite.page.getByRole('link', { name: 'Policies' }).click();
    await suite.page.getByRole('link', { name: POLICY_ID }).click();
    await suite.page.getByText('pap accepts this policy.').waitFor();
    await replaceEditorText(suite.page, GOOD.replace('Mallory is never shown', 'Mallory stays hidden'));
    await suite.page.getByText('pap accepts this policy.').waitFor();
    await suite.page.getByRole('button', { name: 'Review changes…' }).click();
    const dialog = suite.page.getByRole('dialog', { name: 'Replace with this text?' });
    await dialog.waitFor();
    expect(await dialog.locator('.cm-deletedChunk').innerText()).toContain('Mallory is never shown');
    expect(await dialog.locator('.cm-changedLine').innerText()).toContain('Mallory stays hidden');
    await suite.browser.screenshot('08-replace-diff');
    await dialog.getByRole('button', { name: 'Replace' }).click();
    await suite.page.getByText(`Replaced ${POLICY_ID}`).waitFor();
    const stored = await fetch(`${suite.stack.pap.url}/ws/policy/${POLICY_ID}`, { headers: { Authorization: `Bearer ${suite.token}`, Accept: 'application/xml' } });
    expect(await stored.text()).toContain('Mallory stays hidden');

    await suite.page.getByRole('button', { name: `Remove ${POLICY_ID}` }).click();
    const confirm = suite.page.getByRole('dialog', { name: 'Remove policy?' });
    await confirm.waitFor();
    // Escape cancels, as for every modal dialog.
    await suite.page.keyboard.press('Escape');
    await confirm.waitFor({ state: 'detached' });
    expect(await suite.page.getByRole('link', { name: POLICY_ID }).count()).toBe(1);
    await suite.page.getByRole('button', { name: `Remove ${POLICY_ID}` }).click();
    await confirm.getByRole('button', { name: 'Remove' }).click();
    await suite.page.getByText(`Removed ${POLICY_ID}`).waitFor();
    await suite.page.getByText('No policy yet.').waitFor();
  }, 60_000);

  test('adds and deploys a timer from its template, and lists it with its schedule', async () => {
    await suite.page.getByRole('link', { name: 'Timers' }).click();
    await suite.page.getByRole('link', { name: 'New timer' }).click();
    await suite.page.getByText('pap accepts this timer.').waitFor();
    await suite.page.getByRole('button', { name: 'Add timer' }).click();
    await suite.page.getByText('Added urn:timer:acme:nightly; it is not deployed yet').waitFor();
    const row = suite.page.getByRole('row', { name: /urn:timer:acme:nightly/ });
    expect(await row.innerText()).toContain('0 0 2 * * ?');
    await suite.page.getByRole('button', { name: 'Deploy urn:timer:acme:nightly' }).click();
    await suite.page.getByText('every replica (2) has it').waitFor({ timeout: 15_000 });
    await waitFor(async () => !(await row.innerText()).includes('not deployed'), { what: 'the timer shown deployed' });
    expect(await row.innerText()).toContain('deployed');
    await suite.browser.screenshot('09-timers');
  }, 60_000);

  test('deploys a selection of timers together, as one revision', async () => {
    const ids = ['urn:timer:acme:early', 'urn:timer:acme:late'];
    for (const [index, id] of ids.entries()) {
      const xml = `<timer xmlns="http://www.mydata-control.de/4.0/mydataLanguageTimer" id="${id}" cron="0 0 ${index + 3} * * ?"><event action="urn:action:acme:tick"/></timer>`;
      const added = await suite.pap('POST', '/ws/timer', xml);
      expect(added.status).toBe(201);
    }
    const revisionOf = async () =>
      ((await (await suite.pap('GET', '/ws/replicas')).json()) as { revision: number }).revision;
    const before = await revisionOf();
    // Away and back, so the list is read again.
    await suite.page.getByRole('link', { name: 'Policies' }).click();
    await suite.page.getByRole('link', { name: 'Timers' }).click();
    for (const id of ids) await suite.page.getByRole('checkbox', { name: `Select ${id}` }).check();
    await suite.page.getByRole('button', { name: 'Deploy selected (2)' }).click();
    await suite.page.getByText(`Deployed 2 timers at once at revision ${before + 1}`).waitFor();
    await suite.page.getByText('every replica (2) has it').waitFor({ timeout: 15_000 });
    expect(await revisionOf()).toBe(before + 1);
    for (const id of ids) {
      const row = suite.page.getByRole('row', { name: new RegExp(id) });
      await waitFor(async () => !(await row.innerText()).includes('not deployed'), { what: `${id} shown deployed` });
    }
    expect(await suite.page.getByRole('button', { name: 'Deploy selected (0)' }).isDisabled()).toBe(true);
  }, 60_000);

  test('warns after registering a PIP the pdps would not call by default, and not after one they would', async () => {
    await suite.page.getByRole('link', { name: 'Components' }).click();
    await suite.page.getByRole('heading', { name: 'Register a component' }).waitFor();
    // The loopback URL second, so the warning must name it by its own index.
    await registerPip(suite.page, 'roles', 'https://9.9.9.9/roles\nhttp://127.0.0.1:9/roles');
    const warnings = suite.page.getByRole('region', { name: `Registered ${PIP_ID('roles')}, with a warning` });
    await warnings.waitFor();
    // Inside the live region, so that screen readers announce it, and a warning, not an error.
    expect(await suite.page.getByRole('status').filter({ has: warnings }).count()).toBe(1);
    expect(await suite.page.getByRole('alert').count()).toBe(0);
    const items = await warnings.getByRole('listitem').allInnerTexts();
    expect(items).toHaveLength(1);
    expect(items[0]).toContain('Warning at urls[1] (http://127.0.0.1:9/roles)');
    expect(items[0]).toContain('`127.0.0.1` is not a public address');
    expect(await warnings.innerText()).toContain('PDP_CALL_ALLOW');
    // Registered all the same.
    await suite.page.getByRole('heading', { name: `PIP ${PIP_ID('roles')}`, exact: true }).waitFor();
    await suite.browser.screenshot('09b-component-warning');

    // A public address (TEST-NET addresses are not public to the egress rules, so a routable one) draws none, and the
    // last registration's warnings go.
    await registerPip(suite.page, 'prices', 'https://9.9.9.9/prices');
    await suite.page.getByRole('heading', { name: `PIP ${PIP_ID('prices')}`, exact: true }).waitFor();
    expect(await suite.page.getByRole('region', { name: /warning/ }).count()).toBe(0);
    expect(await suite.page.locator('.warnings').count()).toBe(0);

    // Once more with the warning: its button is the next stop after Register, and dismissing it hands the focus back.
    await registerPip(suite.page, 'roles', 'http://127.0.0.1:9/roles');
    await warnings.waitFor();
    expect(await warnings.getByRole('listitem').allInnerTexts()).toEqual([expect.stringContaining('Warning at urls[0] (http://127.0.0.1:9/roles)')]);
    await suite.page.getByRole('button', { name: 'Register', exact: true }).focus();
    await suite.page.keyboard.press('Tab');
    expect(await suite.page.evaluate(() => document.activeElement?.textContent)).toBe('Dismiss the warnings');
    await suite.page.keyboard.press('Enter');
    await warnings.waitFor({ state: 'detached' });
    expect(await suite.page.evaluate(() => document.activeElement?.textContent)).toBe('Register');
  }, 60_000);

  test('fits a narrow window without sideways scrolling', async () => {
    await suite.page.setViewportSize({ width: 390, height: 844 });
    // Each page with what it shows once loaded: the timer is the one document left, the PEP the one component.
    const pages: Array<[string, string]> = [
      ['Timers', 'urn:timer:acme:nightly'],
      ['Components', PEP_ID],
      ['Playground', 'Run the event'],
    ];
    for (const [name, loaded] of pages) {
      await suite.page.getByRole('link', { name }).click();
      await suite.page.getByRole('heading', { name, exact: true, level: 1 }).waitFor();
      await suite.page.getByText(loaded).first().waitFor();
      // Wide tables scroll inside their own box (.table-wrap); the page itself must not.
      const overflow = await suite.page.evaluate(() =>
        [...document.querySelectorAll('body *')]
          .filter((el) => el.closest('.table-wrap') === null && el.getBoundingClientRect().right > window.innerWidth + 0.5)
          .map((el) => `${el.tagName}.${el.className}`),
      );
      expect({ name, overflow }).toEqual({ name, overflow: [] });
      await suite.browser.screenshot(`10-narrow-${name.toLowerCase()}`);
    }
    await suite.page.setViewportSize({ width: 1280, height: 800 });
  }, 60_000);

  test('no page logged an error or broke its CSP', () => {
    // The browser logs every 4xx answer: the wrong secret's 401 was asked for. The live checks of the mistake answer
    // 200 with their diagnostics, so they log nothing.
    const expected = /^Failed to load resource: the server responded with a status of 401 /;
    expect(suite.browser.problems.filter((p) => !expected.test(p))).toEqual([]);
  });

  test('takes the README screenshot: the playground explaining an inhibited event', async () => {
    await runMallory(suite.page);
    await suite.page.getByTestId('outcome').getByRole('heading', { name: 'The event is allowed' }).waitFor();
    await suite.page.getByRole('link', { name: 'Policies' }).click();
    await suite.page.getByRole('link', { name: 'New policy' }).click();
    await suite.page.getByRole('button', { name: 'Add policy' }).click();
    await suite.page.getByText('Added urn:policy:acme:new-policy; it is not deployed yet').waitFor();
    await suite.page.getByRole('button', { name: 'Deploy urn:policy:acme:new-policy' }).click();
    await suite.page.getByText('every replica (2) has it').waitFor({ timeout: 15_000 });
    await runMallory(suite.page);
    await suite.page.getByTestId('outcome').getByRole('heading', { name: 'The event is inhibited' }).waitFor();
    const file = await suite.browser.screenshot('readme-console');
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

