import { unlabelledControls } from './browser';
import { useConsoleSuite } from './console-stack';

/**
 * The Solutions page on a real stack in chromium: a solution's default decision set in the console is read back after
 * a reload and decided by the pdp; values pap refuses are shown as its problem, and change nothing.
 */
const suite = useConsoleSuite(1);

/** A fresh page load (the token lives in memory only, so this signs in again) and the Solutions page. */
async function openSolutions(): Promise<void> {
  await suite.signIn();
  await suite.page.getByRole('link', { name: 'Solutions' }).click();
  await suite.page.getByRole('heading', { name: 'Solution settings' }).waitFor();
}

async function show(solution: string): Promise<void> {
  await suite.page.getByLabel('Solution', { exact: true }).fill(solution);
  await suite.page.getByRole('button', { name: 'Show' }).click();
}

const settingsOf = async (solution: string): Promise<unknown> =>
  ((await (await suite.pap('GET', `/ws/solutions/${solution}/settings`)).json()) as { settings: unknown }).settings;

describe('the Solutions page', () => {
  test("sets a solution's default decision, reads it back after a reload, and the pdp decides by it", async () => {
    await openSolutions();
    await show('acme');
    await suite.page.getByRole('status').getByText(/^Settings of acme at revision \d+\.$/).waitFor();
    expect(await suite.page.getByLabel('Default decision').inputValue()).toBe('');
    expect(await suite.page.getByLabel('AuthZEN default').inputValue()).toBe('');
    await suite.page.getByLabel('Default decision').selectOption('inhibit');
    await suite.page.getByRole('button', { name: 'Save' }).click();
    const saved = suite.page.getByRole('status').getByText(/^Saved: revision (\d+), which every pdp switches to\.$/);
    await saved.waitFor();
    const revision = Number(/revision (\d+)/.exec(await saved.innerText())?.[1]);
    expect(await unlabelledControls(suite.page)).toEqual([]);
    await suite.browser.screenshot('solutions-01-saved');

    await openSolutions();
    await show('acme');
    await suite.page.getByRole('status').getByText(`Settings of acme at revision ${revision}.`).waitFor();
    expect(await suite.page.getByLabel('Default decision').inputValue()).toBe('inhibit');
    expect(await suite.page.getByLabel('AuthZEN default').inputValue()).toBe('');
    expect(await settingsOf('acme')).toEqual({ defaultDecision: 'inhibit' });

    // No policy reacts to this action: the solution's default decides, from the revision the page named.
    const pdp = suite.stack.pdps[0];
    if (pdp === undefined) throw new Error('no pdp');
    const decided = await fetch(`${pdp.url}/event`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${suite.token}`, 'Content-Type': 'application/json', 'Min-Policy-Revision': String(revision) },
      body: JSON.stringify({ actionId: { scope: 'acme', action: 'print' }, timestamp: 0, parameters: [] }),
    });
    expect(decided.status).toBe(200);
    expect(((await decided.json()) as { eventAllowed: unknown }).eventAllowed).toBe(false);
    await suite.browser.screenshot('solutions-02-read-back');
  }, 90_000);

  test('a value pap refuses is shown as its problem and changes nothing', async () => {
    // A setting no select offers (as from an older console): pap names the field it refuses.
    await suite.page.getByLabel('Default decision').evaluate((select) => {
      const option = document.createElement('option');
      option.value = 'maybe';
      option.textContent = 'maybe';
      select.append(option);
    });
    await suite.page.getByLabel('Default decision').selectOption('maybe');
    await suite.page.getByRole('button', { name: 'Save' }).click();
    const alert = suite.page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.innerText()).toMatch(/defaultDecision/);
    expect(await settingsOf('acme')).toEqual({ defaultDecision: 'inhibit' });
    await suite.browser.screenshot('solutions-03-refused-value');

    // A solution name the form lets through (its characters are right) but pap refuses: 129 letters, over its limit.
    await show('a'.repeat(129));
    await alert.getByText(/129 characters long; it may have at most 128/).waitFor();
    // The refused name's settings are not offered for editing.
    expect(await suite.page.getByLabel('Default decision').count()).toBe(0);
    expect(await suite.page.getByRole('status').count()).toBe(0);
    await suite.browser.screenshot('solutions-04-refused-name');
  }, 60_000);

  test('the page logged nothing but the two refusals', () => {
    const refused = /^Failed to load resource: the server responded with a status of 400 /;
    expect(suite.browser.problems.filter((p) => !refused.test(p))).toEqual([]);
    expect(suite.browser.problems.filter((p) => refused.test(p))).toHaveLength(2);
  });
});
