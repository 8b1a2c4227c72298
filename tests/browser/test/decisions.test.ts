import { waitFor } from '@custos/test-kit';
import { unlabelledControls } from './browser';
import { useConsoleSuite } from './console-stack';
import { walkthroughPolicy } from './readme';

/**
 * The console's Decisions page (issue 24) on a real stack in chromium: a decision a pdp made is found by its id,
 * its record is shown, and — its solution recording every parameter — its event is explained again.
 */
const POLICY_ID = 'urn:policy:acme:mask-names';

const suite = useConsoleSuite(1);
let decisionId: string;

beforeAll(async () => {
  expect((await suite.pap('POST', '/ws/policy', walkthroughPolicy())).status).toBe(201);
  expect((await suite.pap('POST', `/ws/policy/${POLICY_ID}/deploy`)).status).toBe(200);
  // acme's records carry every parameter: the event is at hand for "explain this event again".
  const settings = await suite.pap('PUT', '/ws/solutions/acme/settings', JSON.stringify({ recordParameters: { clear: ['*'] } }), 'application/json');
  expect(settings.status).toBe(200);
  const revision = settings.headers.get('policy-revision') ?? '0';
  const pdp = suite.stack.pdps[0];
  if (pdp === undefined) throw new Error('no pdp');
  const answer = await fetch(`${pdp.url}/event`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${suite.token}`, 'Content-Type': 'application/json', 'Min-Policy-Revision': revision },
    body: JSON.stringify({
      actionId: { urn: 'urn:action:acme:show-employee' },
      timestamp: Date.now(),
      parameters: [{ name: 'user', value: { value: { id: 'u2', name: { firstName: 'Mallory' } }, type: 'com.acme.User', isComplex: true } }],
    }),
  });
  const decided = (await answer.json()) as { id: { identifier: string }; eventAllowed: boolean };
  expect(decided.eventAllowed).toBe(false);
  decisionId = decided.id.identifier;
  await waitFor(async () => (await suite.pap('GET', `/ws/decisions/${decisionId}`)).status === 200, { what: 'the decision record', timeoutMs: 20_000 });
}, 120_000);

describe('the Decisions page', () => {
  test('signs in and lists the decision records', async () => {
    await suite.signIn();
    await suite.page.getByRole('link', { name: 'Decisions' }).click();
    await suite.page.getByRole('heading', { name: 'Decisions', level: 1 }).waitFor();
    await suite.page.getByRole('link', { name: decisionId }).waitFor();
    expect(await unlabelledControls(suite.page)).toEqual([]);
    await suite.browser.screenshot('24-01-decisions-list');
  }, 60_000);

  test('finds the decision by its id and shows its record', async () => {
    await suite.page.getByLabel('Decision id').fill(decisionId);
    await suite.page.getByRole('button', { name: 'Search' }).click();
    const rows = suite.page.locator('tbody tr');
    await waitFor(async () => (await rows.count()) === 1, { what: 'one row for the decision id' });
    await suite.page.getByRole('link', { name: decisionId }).click();
    const detail = suite.page.getByTestId('decision-detail');
    await detail.waitFor();
    const text = await detail.innerText();
    expect(text).toContain(`${decisionId}: inhibited`);
    expect(text).toContain('urn:action:acme:show-employee');
    expect(text).toContain(`decided by ${POLICY_ID}`);
    expect(text).toContain('"firstName":"Mallory"');
    expect(suite.page.url()).toContain(`#/decisions/${encodeURIComponent(decisionId)}`);
    await suite.browser.screenshot('24-02-decision-found-by-id');
  }, 60_000);

  test('explains the recorded event again with the policies deployed now', async () => {
    await suite.page.getByRole('button', { name: 'Explain this event again' }).click();
    const again = suite.page.getByTestId('explained-again');
    await again.waitFor();
    const text = await again.innerText();
    expect(text).toContain('Explained again now: inhibited');
    expect(text).toContain('Mallory is never shown');
    await suite.browser.screenshot('24-03-decision-explained-again');
    expect(suite.browser.problems).toEqual([]);
  }, 60_000);
});
