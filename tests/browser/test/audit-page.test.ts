import { ADMIN, useConsoleSuite } from './console-stack';
import { walkthroughPolicy } from './readme';

/**
 * The console's Audit page (issue 24, item 3) on a real auth and pap: an accepted change made through pap's API and
 * a refused one both show, with who, what and why; the outcome filter narrows the table.
 */
const POLICY_ID = 'urn:policy:acme:mask-names';

const suite = useConsoleSuite(0);

test('shows accepted and refused changes, and filters them by outcome', async () => {
  expect((await suite.pap('POST', '/ws/policy', walkthroughPolicy())).status).toBe(201);
  expect((await suite.pap('POST', '/ws/policy', walkthroughPolicy())).status).toBe(409);

  await suite.signIn();
  await suite.page.getByRole('link', { name: 'Audit' }).click();
  await suite.page.getByRole('heading', { name: 'Audit' }).waitFor();

  const refused = suite.page.getByRole('row', { name: /refused 409/ });
  await refused.waitFor();
  expect(await refused.innerText()).toContain(`policy.add ${POLICY_ID}`);
  expect(await refused.innerText()).toContain('conflict: ');
  const accepted = suite.page.getByRole('row', { name: /accepted 201/ });
  expect(await accepted.innerText()).toContain(ADMIN.id);
  expect(await accepted.innerText()).toContain(`policy.add ${POLICY_ID}`);
  await suite.browser.screenshot('24-03-audit-page');

  await suite.page.getByLabel('Outcome').selectOption('refused');
  await suite.page.getByRole('button', { name: 'Filter' }).click();
  await suite.page.getByRole('row', { name: /accepted 201/ }).waitFor({ state: 'detached' });
  // The filtered page replaces the table; its rows come with the answer, after the accepted row is gone.
  await suite.page.getByRole('row', { name: /refused 409/ }).waitFor();
  expect(await suite.page.getByRole('row', { name: /refused 409/ }).count()).toBe(1);
  await suite.browser.screenshot('24-03-audit-page-refused');
}, 90_000);
