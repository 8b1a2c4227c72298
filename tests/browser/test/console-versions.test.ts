import { waitFor } from '@custos/test-kit';
import { unlabelledControls } from './browser';
import { editorText, replaceEditorText } from './console-editor';
import { ADMIN, useConsoleSuite } from './console-stack';
import { walkthroughPolicy } from './readme';

/**
 * A policy's History tab (issue 24) on a real stack in chromium: two edits in the console make versions 2 and 3,
 * the tab lists all three with who stored each and a diff, and restoring version 1 with "deploy" makes both pdp
 * replicas decide by version 1's text again.
 */
const POLICY_ID = 'urn:policy:acme:mask-names';
const V1 = walkthroughPolicy();
const V2 = V1.replace('value="Mallory"', 'value="Eve"');
const V3 = V2.replace('reason="Mallory is never shown"', 'reason="Eve is never shown"');

const suite = useConsoleSuite(2);

/** What the pdp decides for a user's first name, once it has `revision`. */
async function decide(pdpUrl: string, firstName: string, revision: number): Promise<{ status: number; allowed: unknown; revision: string | null }> {
  const event = {
    actionId: { scope: 'acme', action: 'show-employee' },
    timestamp: 1763798400000,
    parameters: [{ name: 'user', value: { value: { id: 'u', name: { firstName } }, type: 'com.acme.User', isComplex: true } }],
  };
  const response = await fetch(`${pdpUrl}/event`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${suite.token}`, 'Content-Type': 'application/json', 'Min-Policy-Revision': String(revision) },
    body: JSON.stringify(event),
  });
  const body = (await response.json()) as { eventAllowed?: unknown };
  return { status: response.status, allowed: body.eventAllowed, revision: response.headers.get('Policy-Revision') };
}

/** Replaces a stored document's text through its editor and the review dialog. */
async function replaceThroughEditor(xml: string, kind: 'policy' | 'timer' = 'policy', id = POLICY_ID): Promise<void> {
  await suite.page.goto(`${suite.stack.pap.url}/console#/${kind === 'policy' ? 'policies' : 'timers'}/${encodeURIComponent(id)}`);
  await suite.page.getByRole('heading', { name: id }).waitFor();
  await suite.page.getByText(`pap accepts this ${kind}.`).waitFor();
  await replaceEditorText(suite.page, xml, '#panel-text');
  await suite.page.getByText(`pap accepts this ${kind}.`).waitFor();
  await suite.page.getByRole('button', { name: 'Review changes…' }).click();
  await suite.page.getByRole('dialog').getByRole('button', { name: 'Replace' }).click();
  await suite.page.getByText(`Replaced ${id}`).waitFor();
}

describe('the History tab of a policy', () => {
  test('signs in and edits an undeployed policy twice', async () => {
    const added = await suite.pap('POST', '/ws/policy', V1);
    expect(added.status).toBe(201);
    await suite.signIn();
    await replaceThroughEditor(V2);
    await replaceThroughEditor(V3);
  }, 90_000);

  test('lists three versions with who stored each, the current one marked, and diffs two of them', async () => {
    await suite.page.getByRole('link', { name: POLICY_ID }).click();
    await suite.page.getByRole('heading', { name: POLICY_ID }).waitFor();
    await suite.page.getByRole('tab', { name: 'History' }).click();
    const rows = suite.page.getByRole('row');
    await rows.nth(3).waitFor();
    // The header and three versions, newest first, each stored by the admin client with its own request id.
    expect(await rows.count()).toBe(4);
    const cells = await suite.page.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].slice(0, 5).map((td) => (td as HTMLElement).innerText.trim())));
    expect(cells.map((c) => c[0])).toEqual(['3', '2', '1']);
    expect(cells.map((c) => c[1])).toEqual([ADMIN.id, ADMIN.id, ADMIN.id]);
    const requestIds = cells.map((c) => c[3] ?? '');
    expect(new Set(requestIds).size).toBe(3);
    for (const requestId of requestIds) expect(requestId).not.toBe('—');
    expect(cells.map((c) => c[4])).toEqual(['current', '', '']);
    // The same versions pap lists, request ids included.
    const listed = (await (await suite.pap('GET', `/ws/policy/${POLICY_ID}/versions`)).json()) as {
      versions: Array<{ number: number; requestId: string }>;
    };
    expect(listed.versions.map((v) => v.requestId).reverse()).toEqual(requestIds);
    expect(await suite.page.getByRole('button', { name: 'Restore version 3' }).count()).toBe(0);

    // The diff starts at the last edit: version 2 to 3 changed the reason only.
    const compare = suite.page.getByRole('region', { name: 'Compare two versions' });
    await compare.getByText('From version 2 to version 3').waitFor();
    expect(await compare.locator('.cm-deletedChunk').innerText()).toContain('Mallory is never shown');
    expect(await compare.locator('.cm-changedLine').allInnerTexts()).toEqual([expect.stringContaining('Eve is never shown')]);
    // From 1 to 3: both edits, the constant and the reason.
    await compare.getByLabel('From version', { exact: true }).selectOption('1');
    await compare.getByText('From version 1 to version 3').waitFor();
    // The caption changes at once, the merge view's chunks when it has compared the texts again.
    const deleted = await waitFor(
      async () => {
        const texts = (await compare.locator('.cm-deletedChunk').allInnerTexts()).join('\n');
        return texts.includes('value="Mallory"') ? texts : undefined;
      },
      { what: 'the diff from version 1 to version 3' },
    );
    expect(deleted).toContain('Mallory is never shown');
    expect((await compare.locator('.cm-changedLine').allInnerTexts()).join('\n')).toMatch(/value="Eve"[\s\S]*Eve is never shown/);
    expect(await unlabelledControls(suite.page)).toEqual([]);
    await suite.browser.screenshot('24-01-history-diff');

    await suite.page.getByRole('button', { name: 'Show version 1' }).click();
    const text = suite.page.getByTestId('version-text');
    await text.getByText('Mallory is never shown').waitFor();
    expect((await text.innerText()).trimEnd()).toBe(V1.trimEnd());
    await suite.browser.screenshot('24-02-history-version-text');
  }, 60_000);

  test('restores version 1 with deploy after a confirmation, and both pdps decide by its text', async () => {
    await suite.page.getByRole('button', { name: 'Restore version 1' }).click();
    const dialog = suite.page.getByRole('dialog', { name: 'Restore version 1?' });
    await dialog.getByText('Its text becomes version 4').waitFor();
    // What the restore changes: from the current text (Eve) back to version 1's (Mallory).
    await dialog.locator('.cm-changedLine').first().waitFor();
    expect((await dialog.locator('.cm-changedLine').allInnerTexts()).join('\n')).toContain('Mallory is never shown');
    await dialog.getByLabel('Deploy it too (one revision with the restore)').check();
    await suite.browser.screenshot('24-03-restore-dialog');
    await dialog.getByRole('button', { name: 'Restore', exact: true }).click();

    // Back on the text tab: the restored text and the revision it took effect at, reached by every replica.
    const notice = suite.page.getByTestId('restored');
    await notice.getByText(/every replica \(2\) has it/).waitFor({ timeout: 20_000 });
    const match = /^Restored version 1 of (\S+) as version 4 and deployed it at revision (\d+);/.exec(await notice.innerText());
    expect(match?.[1]).toBe(POLICY_ID);
    const revision = Number(match?.[2]);
    expect(await suite.page.getByRole('tab', { name: 'Text' }).getAttribute('aria-selected')).toBe('true');
    await suite.page.getByText('Deployed: saving re-deploys it at once.').waitFor();
    await suite.page.getByText('pap accepts this policy.').waitFor();
    expect((await editorText(suite.page, '#panel-text')).trimEnd()).toBe(V1.trimEnd());
    await suite.browser.screenshot('24-04-restored');

    // The revision is pap's, and each pdp decides by version 1's text from it: Mallory inhibited, Eve masked.
    const replicas = (await (await suite.pap('GET', '/ws/replicas')).json()) as { revision: number };
    expect(replicas.revision).toBe(revision);
    expect(suite.stack.pdps).toHaveLength(2);
    for (const pdp of suite.stack.pdps) {
      expect(await decide(pdp.url, 'Mallory', revision)).toEqual({ status: 200, allowed: false, revision: String(revision) });
      expect(await decide(pdp.url, 'Eve', revision)).toEqual({ status: 200, allowed: true, revision: String(revision) });
    }

    // The history now has version 4, current and deployed, stored by the admin client.
    await suite.page.getByRole('tab', { name: 'History' }).click();
    const newest = suite.page.locator('tbody tr').first();
    await newest.getByText('deployed').waitFor();
    expect(await newest.locator('td').first().innerText()).toBe('4');
    expect(await suite.page.locator('tbody tr').count()).toBe(4);
    // The diff now starts at the restore: version 3's Eve back to version 1's Mallory.
    const compare = suite.page.getByRole('region', { name: 'Compare two versions' });
    await compare.getByText('From version 3 to version 4').waitFor();
    // As above: the chunks come when the merge view has compared the texts, after the caption.
    const removed = await waitFor(
      async () => {
        const texts = (await compare.locator('.cm-deletedChunk').allInnerTexts()).join('\n');
        return texts === '' ? undefined : texts;
      },
      { what: 'the diff from version 3 to version 4' },
    );
    expect(removed).toMatch(/value="Eve"[\s\S]*Eve is never shown/);
    await suite.browser.screenshot('24-05-history-after-restore');
  }, 60_000);

});

/** The same tab on a timer: two edits of its schedule, three versions, and version 1 restored (not deployed). */
describe('the History tab of a timer', () => {
  const TIMER_ID = 'urn:timer:acme:versions';
  const timer = (cron: string) =>
    `<timer xmlns="http://www.mydata-control.de/4.0/mydataLanguageTimer" id="${TIMER_ID}" cron="${cron}"><event action="urn:action:acme:report"/></timer>`;
  const T1 = timer('0 0 6 * * ?');

  test('edits a timer twice, lists three versions, and restores version 1 as version 4', async () => {
    const added = await suite.pap('POST', '/ws/timer', T1);
    expect(added.status).toBe(201);
    await replaceThroughEditor(timer('0 0 7 * * ?'), 'timer', TIMER_ID);
    await replaceThroughEditor(timer('0 30 7 * * ?'), 'timer', TIMER_ID);

    // A replace returns to the list; open the timer again.
    await suite.page.getByRole('link', { name: TIMER_ID }).click();
    await suite.page.getByRole('heading', { name: TIMER_ID }).waitFor();
    await suite.page.getByRole('tab', { name: 'History' }).click();
    await suite.page.locator('tbody tr').nth(2).waitFor();
    const numbers = await suite.page.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => (tr.querySelector('td') as HTMLElement | null)?.innerText.trim()));
    expect(numbers).toEqual(['3', '2', '1']);
    const compare = suite.page.getByRole('region', { name: 'Compare two versions' });
    await compare.getByText('From version 2 to version 3').waitFor();
    expect(await compare.locator('.cm-deletedChunk').innerText()).toContain('0 0 7 * * ?');
    expect((await compare.locator('.cm-changedLine').allInnerTexts()).join('\n')).toContain('0 30 7 * * ?');

    await suite.page.getByRole('button', { name: 'Restore version 1' }).click();
    const dialog = suite.page.getByRole('dialog', { name: 'Restore version 1?' });
    await dialog.getByText('Its text becomes version 4').waitFor();
    // Undeployed, left undeployed: the box stays unticked.
    expect(await dialog.getByLabel('Deploy it too (one revision with the restore)').isChecked()).toBe(false);
    await dialog.getByRole('button', { name: 'Restore', exact: true }).click();
    await suite.page.getByTestId('restored').getByText(`Restored version 1 of ${TIMER_ID} as version 4; it is not deployed`).waitFor();
    expect((await editorText(suite.page, '#panel-text')).trimEnd()).toBe(T1);

    // pap holds version 1's text as the current one, and the history has four versions.
    const stored = await fetch(`${suite.stack.pap.url}/ws/timer/${TIMER_ID}`, { headers: { Authorization: `Bearer ${suite.token}`, Accept: 'application/xml' } });
    expect(await stored.text()).toBe(T1);
    const listed = (await (await suite.pap('GET', `/ws/timer/${TIMER_ID}/versions`)).json()) as {
      versions: Array<{ number: number; current: boolean }>;
    };
    expect(listed.versions.map((v) => [v.number, v.current])).toEqual([[1, false], [2, false], [3, false], [4, true]]);
    await suite.browser.screenshot('24-06-timer-restored');
  }, 90_000);

  test('no page logged an error', () => {
    expect(suite.browser.problems).toEqual([]);
  });
});
