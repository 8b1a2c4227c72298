import type { Response } from 'playwright-core';
import { waitFor } from '@custos/test-kit';
import { editorText, replaceEditorText } from './console-editor';
import { useConsoleSuite } from './console-stack';
import { walkthroughPolicy } from './readme';

/**
 * The console's fixes of issue 22, each on a real stack in chromium: a new document after another, component
 * parameters with a plain dash, a refused event's field paths, timers' next fire times, a stopped replica, and a
 * live check that logs nothing.
 */
const POLICY_ID = 'urn:policy:acme:mask-names';
const PEP_ID = 'urn:component:acme:pep:hr-portal';
const GOOD = walkthroughPolicy();

const suite = useConsoleSuite(2);

describe('the console fixes of issue 22', () => {
  test('signs in', async () => {
    await suite.signIn();
  }, 60_000);

  test('registers a parameter written with a plain dash: the description is not part of the type', async () => {
    await suite.page.getByRole('link', { name: 'Components' }).click();
    await suite.page.getByRole('heading', { name: 'Register a component' }).waitFor();
    const hint = suite.page.getByText('Parameters, one per line:');
    expect(await hint.innerText()).toContain('name: type - description (any dash with spaces around it)');
    await suite.page.getByLabel('Type', { exact: true }).selectOption('PEP');
    await suite.page.getByLabel('Solution').fill('acme');
    await suite.page.getByLabel('Name', { exact: true }).fill('hr-portal');
    await suite.page.getByLabel('URLs (one per line)').fill('http://hr.acme.internal:9000/pep');
    await suite.page.getByLabel('Method name').fill('urn:action:acme:show-employee');
    await suite.page.getByLabel('Event platform').fill('web');
    await suite.page.getByLabel('Event context').fill('hr');
    await suite.page.getByLabel('Event action').fill('show-employee');
    await suite.page.getByLabel(/^Parameters, one per line/).fill('user: com.acme.User - the employee\nrecord: com.acme.user-record -- kept as typed');
    await suite.page.getByRole('button', { name: 'Register', exact: true }).click();
    await suite.page.getByText(`Registered ${PEP_ID}`).waitFor();
    // The list shows what was registered in the form's own syntax.
    const row = suite.page.getByRole('row', { name: /urn:action:acme:show-employee/ });
    expect(await row.locator('.parameter-line').allInnerTexts()).toEqual(['user: com.acme.User - the employee', 'record: com.acme.user-record - kept as typed']);
    const stored = (await (await suite.pap('GET', `/ws/component/${PEP_ID}`)).json()) as { componentInterfaces: Array<{ parameters: unknown[] }> };
    expect(stored.componentInterfaces[0]?.parameters).toEqual([
      { name: 'user', type: 'com.acme.User', description: 'the employee' },
      { name: 'record', type: 'com.acme.user-record', description: 'kept as typed' },
    ]);
    await suite.browser.screenshot('22-01-component-plain-dash');
  }, 60_000);

  test('going from a policy to #/policies/new starts from the template, without the old text or its banner', async () => {
    expect((await suite.pap('POST', '/ws/policy', GOOD)).status).toBe(201);
    const deployed = await suite.pap('POST', `/ws/policy/${POLICY_ID}/deploy`);
    expect(deployed.status).toBe(200);
    // Both replicas have it before the playground asks one of them.
    const revision = Number(deployed.headers.get('Policy-Revision'));
    await waitFor(
      async () => {
        const { replicas } = (await (await suite.pap('GET', '/ws/replicas')).json()) as { replicas: Array<{ revision: number | null }> };
        return replicas.length === 2 && replicas.every((r) => (r.revision ?? 0) >= revision);
      },
      { what: `both replicas at revision ${revision}`, timeoutMs: 15_000 },
    );
    await suite.page.goto(`${suite.stack.pap.url}/console#/policies/${encodeURIComponent(POLICY_ID)}`);
    await suite.page.getByRole('heading', { name: POLICY_ID }).waitFor();
    await suite.page.getByText('Deployed: saving re-deploys it at once.').waitFor();
    await suite.page.getByText('pap accepts this policy.').waitFor();
    expect(await editorText(suite.page)).toContain('Mallory is never shown');

    // The address alone changes, as when typed into the address bar.
    await suite.page.evaluate(() => {
      window.location.hash = '#/policies/new';
    });
    await suite.page.getByRole('heading', { name: 'New policy' }).waitFor();
    await suite.page.getByText('pap accepts this policy.').waitFor();
    const text = await editorText(suite.page);
    expect(text).toContain('id="urn:policy:acme:new-policy"');
    expect(text).not.toContain(POLICY_ID);
    expect(await suite.page.getByText(/Deployed: saving|Not deployed\.|Last changed/).count()).toBe(0);
    expect(await suite.page.getByRole('button', { name: 'Add policy' }).count()).toBe(1);
    await suite.browser.screenshot('22-02-new-after-policy');
  }, 60_000);

  test('typing an invalid policy shows its problems from 200 answers, and the browser logs no error', async () => {
    const checks: Response[] = [];
    const onResponse = (response: Response) => {
      if (response.url().endsWith('/ws/policy/validate')) checks.push(response);
    };
    suite.page.on('response', onResponse);
    try {
      const before = suite.browser.problems.length;
      await suite.page.locator('.cm-content').click();
      await suite.page.keyboard.press('Control+End');
      // Keystroke by keystroke: an unknown element after the root's end, so each check on the way is refused.
      await suite.page.keyboard.type('<oops', { delay: 30 });
      await suite.page.getByTestId('check').getByText(/\d+ problems?:/).waitFor();
      await waitFor(() => checks.length > 0, { what: 'a live check' });
      expect(await suite.page.getByTestId('check').innerText()).toMatch(/line \d+: /);
      // Every check answered 200, with the problems in its body, and nothing was logged: no failed request.
      expect(checks.map((r) => r.status())).toEqual(checks.map(() => 200));
      expect(suite.browser.problems.slice(before)).toEqual([]);
      await suite.browser.screenshot('22-03-live-check-no-errors');
    } finally {
      suite.page.off('response', onResponse);
    }
    // Adding what the check refused still fails with a 400 (the one error logged here is that add).
    await suite.page.getByRole('button', { name: 'Add policy' }).click();
    await suite.page.getByRole('alert').waitFor();
    expect(await suite.page.getByRole('alert').innerText()).toContain('the policy is not valid');
  }, 60_000);

  test('the playground shows where a refused event is wrong, at the field paths the pdp gives', async () => {
    await suite.page.getByRole('link', { name: 'Playground' }).click();
    await suite.page.getByLabel('As JSON').check();
    const event = {
      actionId: { scope: 'acme', action: 'show-employee' },
      timestamp: 0,
      parameters: [
        { name: 'user', value: { value: 'Ann', type: 'java.lang.String', isComplex: false } },
        { name: 'missing' },
        { name: 'odd', value: { value: 1, type: 'java.lang.Double', isComplex: 'no' } },
      ],
    };
    await suite.page.getByLabel('Event (JSON, api.md §3)').fill(JSON.stringify(event, null, 2));
    await suite.page.getByRole('button', { name: 'Run the event' }).click();
    const alert = suite.page.getByRole('alert');
    await alert.waitFor();
    const items = await alert.getByRole('listitem').allInnerTexts();
    expect(items).toEqual(
      expect.arrayContaining([expect.stringMatching(/^parameters\[1\]\.value: /), expect.stringMatching(/^parameters\[2\]\.value\.isComplex: must be of type boolean/)]),
    );
    await suite.browser.screenshot('22-04-playground-paths');
  }, 60_000);

  test('the playground explains a mismatched comparison', async () => {
    await suite.page.getByLabel('With a form').check();
    await suite.page.getByLabel('PEP interface').selectOption({ label: `urn:action:acme:show-employee (${PEP_ID})` });
    await suite.page.getByLabel('Value (JSON, or plain text)').first().fill('{ "id": "u1", "name": { "firstName": "Ann" } }');
    await suite.page.getByRole('button', { name: 'Run the event' }).click();
    const outcome = suite.page.getByTestId('outcome');
    await outcome.getByRole('heading', { name: 'The event is allowed' }).waitFor();
    const tree = await outcome.innerText();
    expect(tree).toMatch(/branch taken\s*else/);
    // The comparison, then each operand on its own line with where it came from and its value.
    expect(tree).toMatch(/equals\s*false\s*event user at \$\.name\.firstName\s*"Ann"\s*constant\s*"Mallory"/);
    await suite.browser.screenshot('22-05-playground-mismatch');
  }, 60_000);

  test('the timer list shows the cron in words and the next fire times', async () => {
    const xml = `<timer xmlns="http://www.mydata-control.de/4.0/mydataLanguageTimer" id="urn:timer:acme:weekdays" cron="0 0 7 ? * MON-FRI"><event action="urn:action:acme:report"/></timer>`;
    expect((await suite.pap('POST', '/ws/timer', xml)).status).toBe(201);
    await suite.page.getByRole('link', { name: 'Timers' }).click();
    const row = suite.page.getByRole('row', { name: /urn:timer:acme:weekdays/ });
    await row.getByText('At 07:00, Monday through Friday').waitFor();
    await row.getByText('next, in UTC:').waitFor();
    const shown = await row.locator('.schedule time').allInnerTexts();
    expect(shown).toHaveLength(3);
    for (const t of shown) expect(t).toMatch(/^(Mon|Tue|Wed|Thu|Fri) \d{1,2} [A-Z][a-z]{2} \d{4} 07:00$/);
    // The same instants pap answers, which the engine computed.
    const schedule = (await (await suite.pap('GET', '/ws/timer/urn:timer:acme:weekdays/schedule')).json()) as { nextFireTimes: string[] };
    expect(await row.locator('.schedule time').evaluateAll((els) => els.map((el) => el.getAttribute('datetime')))).toEqual(schedule.nextFireTimes.slice(0, 3));
    await suite.browser.screenshot('22-06-timers-schedule');

    // The editor reads the cron as it is typed; pap's fire times are for the stored cron, so they go once it changes.
    await suite.page.getByRole('link', { name: 'urn:timer:acme:weekdays' }).click();
    const reading = suite.page.getByTestId('schedule');
    await reading.getByText('At 07:00, Monday through Friday').waitFor();
    await reading.getByText('next, in UTC:').waitFor();
    await replaceEditorText(suite.page, xml.replace('0 0 7 ? * MON-FRI', '0 30 18 L * ?'));
    await reading.getByText('At 18:30, on the last day of the month').waitFor();
    expect(await reading.getByText('next, in UTC:').count()).toBe(0);
    await suite.browser.screenshot('22-06b-timer-editor');
  }, 60_000);

  test('a stopped replica stays listed as silent, with when it was last seen', async () => {
    await suite.page.getByRole('link', { name: 'Replicas' }).click();
    const row = (name: string) => suite.page.getByRole('row', { name: new RegExp(name) });
    await row('replica-2').getByText('reporting').waitFor({ timeout: 15_000 });
    await suite.stack.pdps[1]?.stop();
    // Three report intervals of silence make it stale; it stays in the list, marked.
    await row('replica-2').getByText(/^silent: last seen (just now|\d+ s ago)$/).waitFor({ timeout: 20_000 });
    expect(await row('replica-1').innerText()).toContain('reporting');
    expect(await suite.page.getByRole('row').count()).toBe(3);
    await suite.browser.screenshot('22-07-replica-stopped');
  }, 60_000);

  test('no page logged an error but the two refusals asked for', () => {
    // The add of the invalid policy and the run of the invalid event; none of the many live checks.
    const refused = /^Failed to load resource: the server responded with a status of 400 /;
    expect(suite.browser.problems.filter((p) => !refused.test(p))).toEqual([]);
    expect(suite.browser.problems.filter((p) => refused.test(p))).toHaveLength(2);
  });
});
