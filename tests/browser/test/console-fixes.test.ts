import type { Page, Response } from 'playwright-core';
import { waitFor } from '@custos/test-kit';
import { launch, type Browser } from './browser';
import { ADMIN, adminToken, startConsoleStack, type ConsoleStack } from './console-stack';
import { walkthroughPolicy } from './readme';

/**
 * The console's fixes of issue 22, each on a real stack in chromium: a new document after another, component
 * parameters with a plain dash, a refused event's field paths, timers' next fire times, a stopped replica, and a
 * live check that logs nothing.
 */
const POLICY_ID = 'urn:policy:acme:mask-names';
const PEP_ID = 'urn:component:acme:pep:hr-portal';
const GOOD = walkthroughPolicy();

let stack: ConsoleStack;
let browser: Browser;
let page: Page;
let token: string;

beforeAll(async () => {
  stack = await startConsoleStack(2);
  browser = await launch();
  page = browser.page;
  token = await adminToken(stack);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
}, 60_000);

async function pap(method: string, path: string, body?: string, type = 'application/xml'): Promise<globalThis.Response> {
  return fetch(`${stack.pap.url}${path}`, { method, headers: { Authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'Content-Type': type }) }, ...(body === undefined ? {} : { body }) });
}

/** The editor's whole text, line by line as CodeMirror shows it. */
const editorText = (p: Page) => p.evaluate(() => [...document.querySelectorAll('.cm-content .cm-line')].map((line) => line.textContent ?? '').join('\n'));

describe('the console fixes of issue 22', () => {
  test('signs in', async () => {
    await page.goto(`${stack.pap.url}/console`);
    await page.getByLabel('Client id').fill(ADMIN.id);
    await page.getByLabel('Client secret').fill(ADMIN.secret);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Policies' }).waitFor();
  }, 60_000);

  test('registers a parameter written with a plain dash: the description is not part of the type', async () => {
    await page.getByRole('link', { name: 'Components' }).click();
    await page.getByRole('heading', { name: 'Register a component' }).waitFor();
    const hint = page.getByText('Parameters, one per line:');
    expect(await hint.innerText()).toContain('name: type - description (any dash with spaces around it)');
    await page.getByLabel('Type', { exact: true }).selectOption('PEP');
    await page.getByLabel('Solution').fill('acme');
    await page.getByLabel('Name', { exact: true }).fill('hr-portal');
    await page.getByLabel('URLs (one per line)').fill('http://hr.acme.internal:9000/pep');
    await page.getByLabel('Method name').fill('urn:action:acme:show-employee');
    await page.getByLabel('Event platform').fill('web');
    await page.getByLabel('Event context').fill('hr');
    await page.getByLabel('Event action').fill('show-employee');
    await page.getByLabel(/^Parameters, one per line/).fill('user: com.acme.User - the employee\nrecord: com.acme.user-record -- kept as typed');
    await page.getByRole('button', { name: 'Register', exact: true }).click();
    await page.getByText(`Registered ${PEP_ID}`).waitFor();
    // The list shows what was registered in the form's own syntax.
    const row = page.getByRole('row', { name: /urn:action:acme:show-employee/ });
    expect(await row.locator('.parameter-line').allInnerTexts()).toEqual(['user: com.acme.User - the employee', 'record: com.acme.user-record - kept as typed']);
    const stored = (await (await pap('GET', `/ws/component/${PEP_ID}`)).json()) as { componentInterfaces: Array<{ parameters: unknown[] }> };
    expect(stored.componentInterfaces[0]?.parameters).toEqual([
      { name: 'user', type: 'com.acme.User', description: 'the employee' },
      { name: 'record', type: 'com.acme.user-record', description: 'kept as typed' },
    ]);
    await browser.screenshot('22-01-component-plain-dash');
  }, 60_000);

  test('going from a policy to #/policies/new starts from the template, without the old text or its banner', async () => {
    expect((await pap('POST', '/ws/policy', GOOD)).status).toBe(201);
    const deployed = await pap('POST', `/ws/policy/${POLICY_ID}/deploy`);
    expect(deployed.status).toBe(200);
    // Both replicas have it before the playground asks one of them.
    const revision = Number(deployed.headers.get('Policy-Revision'));
    await waitFor(
      async () => {
        const { replicas } = (await (await pap('GET', '/ws/replicas')).json()) as { replicas: Array<{ revision: number | null }> };
        return replicas.length === 2 && replicas.every((r) => (r.revision ?? 0) >= revision);
      },
      { what: `both replicas at revision ${revision}`, timeoutMs: 15_000 },
    );
    await page.goto(`${stack.pap.url}/console#/policies/${encodeURIComponent(POLICY_ID)}`);
    await page.getByRole('heading', { name: POLICY_ID }).waitFor();
    await page.getByText('Deployed: saving re-deploys it at once.').waitFor();
    await page.getByText('pap accepts this policy.').waitFor();
    expect(await editorText(page)).toContain('Mallory is never shown');

    // The address alone changes, as when typed into the address bar.
    await page.evaluate(() => {
      window.location.hash = '#/policies/new';
    });
    await page.getByRole('heading', { name: 'New policy' }).waitFor();
    await page.getByText('pap accepts this policy.').waitFor();
    const text = await editorText(page);
    expect(text).toContain('id="urn:policy:acme:new-policy"');
    expect(text).not.toContain(POLICY_ID);
    expect(await page.getByText(/Deployed: saving|Not deployed\.|Last changed/).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Add policy' }).count()).toBe(1);
    await browser.screenshot('22-02-new-after-policy');
  }, 60_000);

  test('typing an invalid policy shows its problems from 200 answers, and the browser logs no error', async () => {
    const checks: Response[] = [];
    const onResponse = (response: Response) => {
      if (response.url().endsWith('/ws/policy/validate')) checks.push(response);
    };
    page.on('response', onResponse);
    try {
      const before = browser.problems.length;
      await page.locator('.cm-content').click();
      await page.keyboard.press('Control+End');
      // Keystroke by keystroke: an unknown element after the root's end, so each check on the way is refused.
      await page.keyboard.type('<oops', { delay: 30 });
      await page.getByTestId('check').getByText(/\d+ problems?:/).waitFor();
      await waitFor(() => checks.length > 0, { what: 'a live check' });
      expect(await page.getByTestId('check').innerText()).toMatch(/line \d+: /);
      // Every check answered 200, with the problems in its body, and nothing was logged: no failed request.
      expect(checks.map((r) => r.status())).toEqual(checks.map(() => 200));
      expect(browser.problems.slice(before)).toEqual([]);
      await browser.screenshot('22-03-live-check-no-errors');
    } finally {
      page.off('response', onResponse);
    }
    // Adding what the check refused still fails with a 400 (the one error logged here is that add).
    await page.getByRole('button', { name: 'Add policy' }).click();
    await page.getByRole('alert').waitFor();
    expect(await page.getByRole('alert').innerText()).toContain('the policy is not valid');
  }, 60_000);

  test('the playground shows where a refused event is wrong, at the field paths the pdp gives', async () => {
    await page.getByRole('link', { name: 'Playground' }).click();
    await page.getByLabel('As JSON').check();
    const event = {
      actionId: { scope: 'acme', action: 'show-employee' },
      timestamp: 0,
      parameters: [
        { name: 'user', value: { value: 'Ann', type: 'java.lang.String', isComplex: false } },
        { name: 'missing' },
        { name: 'odd', value: { value: 1, type: 'java.lang.Double', isComplex: 'no' } },
      ],
    };
    await page.getByLabel('Event (JSON, api.md §3)').fill(JSON.stringify(event, null, 2));
    await page.getByRole('button', { name: 'Run the event' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    const items = await alert.getByRole('listitem').allInnerTexts();
    expect(items).toEqual(
      expect.arrayContaining([expect.stringMatching(/^parameters\[1\]\.value: /), expect.stringMatching(/^parameters\[2\]\.value\.isComplex: must be of type boolean/)]),
    );
    await browser.screenshot('22-04-playground-paths');
  }, 60_000);

  test('the playground explains a mismatched comparison', async () => {
    await page.getByLabel('With a form').check();
    await page.getByLabel('PEP interface').selectOption({ label: `urn:action:acme:show-employee (${PEP_ID})` });
    await page.getByLabel('Value (JSON, or plain text)').first().fill('{ "id": "u1", "name": { "firstName": "Ann" } }');
    await page.getByRole('button', { name: 'Run the event' }).click();
    const outcome = page.getByTestId('outcome');
    await outcome.getByRole('heading', { name: 'The event is allowed' }).waitFor();
    const tree = await outcome.innerText();
    expect(tree).toMatch(/branch taken\s*else/);
    // The comparison, then each operand on its own line with where it came from and its value.
    expect(tree).toMatch(/equals\s*false\s*event user at \$\.name\.firstName\s*"Ann"\s*constant\s*"Mallory"/);
    await browser.screenshot('22-05-playground-mismatch');
  }, 60_000);

  test('the timer list shows the cron in words and the next fire times', async () => {
    const xml = `<timer xmlns="http://www.mydata-control.de/4.0/mydataLanguageTimer" id="urn:timer:acme:weekdays" cron="0 0 7 ? * MON-FRI"><event action="urn:action:acme:report"/></timer>`;
    expect((await pap('POST', '/ws/timer', xml)).status).toBe(201);
    await page.getByRole('link', { name: 'Timers' }).click();
    const row = page.getByRole('row', { name: /urn:timer:acme:weekdays/ });
    await row.getByText('At 07:00, Monday through Friday').waitFor();
    await row.getByText('next, in UTC:').waitFor();
    const shown = await row.locator('.schedule time').allInnerTexts();
    expect(shown).toHaveLength(3);
    for (const t of shown) expect(t).toMatch(/^(Mon|Tue|Wed|Thu|Fri) \d{1,2} [A-Z][a-z]{2} \d{4} 07:00$/);
    // The same instants pap answers, which the engine computed.
    const schedule = (await (await pap('GET', '/ws/timer/urn:timer:acme:weekdays/schedule')).json()) as { nextFireTimes: string[] };
    expect(await row.locator('.schedule time').evaluateAll((els) => els.map((el) => el.getAttribute('datetime')))).toEqual(schedule.nextFireTimes.slice(0, 3));
    await browser.screenshot('22-06-timers-schedule');

    // The editor reads the cron as it is typed; pap's fire times are for the stored cron, so they go once it changes.
    await page.getByRole('link', { name: 'urn:timer:acme:weekdays' }).click();
    const reading = page.getByTestId('schedule');
    await reading.getByText('At 07:00, Monday through Friday').waitFor();
    await reading.getByText('next, in UTC:').waitFor();
    await page.locator('.cm-content').click();
    await page.keyboard.press('Control+A');
    await page.keyboard.insertText(xml.replace('0 0 7 ? * MON-FRI', '0 30 18 L * ?'));
    await reading.getByText('At 18:30, on the last day of the month').waitFor();
    expect(await reading.getByText('next, in UTC:').count()).toBe(0);
    await browser.screenshot('22-06b-timer-editor');
  }, 60_000);

  test('a stopped replica stays listed as silent, with when it was last seen', async () => {
    await page.getByRole('link', { name: 'Replicas' }).click();
    const row = (name: string) => page.getByRole('row', { name: new RegExp(name) });
    await row('replica-2').getByText('reporting').waitFor({ timeout: 15_000 });
    await stack.pdps[1]?.stop();
    // Three report intervals of silence make it stale; it stays in the list, marked.
    await row('replica-2').getByText(/^silent: last seen (just now|\d+ s ago)$/).waitFor({ timeout: 20_000 });
    expect(await row('replica-1').innerText()).toContain('reporting');
    expect(await page.getByRole('row').count()).toBe(3);
    await browser.screenshot('22-07-replica-stopped');
  }, 60_000);

  test('no page logged an error but the two refusals asked for', () => {
    // The add of the invalid policy and the run of the invalid event; none of the many live checks.
    const refused = /^Failed to load resource: the server responded with a status of 400 /;
    expect(browser.problems.filter((p) => !refused.test(p))).toEqual([]);
    expect(browser.problems.filter((p) => refused.test(p))).toHaveLength(2);
  });
});
