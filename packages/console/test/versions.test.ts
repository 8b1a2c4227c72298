import { ConsoleApi, type Fetch } from '../src/web/logic/api';
import { authorOf, DIFF_LEGEND, initialPair, pairCaption, REVIEW_CAPTION, restoreOutcome } from '../src/web/logic/versions';

const version = (number: number, current = false) => ({ number, current });

describe('initialPair', () => {
  test('compares the version before the current with the current', () => {
    expect(initialPair([version(1), version(2), version(3, true)])).toEqual({ from: 2, to: 3 });
  });

  test('a lone version is compared with itself; no version, nothing to compare', () => {
    expect(initialPair([version(1, true)])).toEqual({ from: 1, to: 1 });
    expect(initialPair([])).toBeUndefined();
  });

  test('without a version marked current, the newest is taken as it', () => {
    expect(initialPair([version(4), version(7)])).toEqual({ from: 4, to: 7 });
  });
});

test('authorOf names the client, or says the version predates history', () => {
  expect(authorOf({ clientId: 'admin' })).toBe('admin');
  expect(authorOf({ clientId: null })).toMatch(/^unknown/);
});

test('pairCaption tells the direction of the diff', () => {
  expect(pairCaption(1, 3)).toMatch(/^From version 1 to version 3 \(what changed\)/);
  expect(pairCaption(3, 1)).toContain('would change back');
  expect(pairCaption(2, 2)).toContain('nothing differs');
});

test('the review dialog and the History tab describe the diff marks the same way, as the view draws them', () => {
  // The diff view draws a coloured bar in its gutter; it strikes nothing through.
  expect(DIFF_LEGEND).toMatch(/red bar/);
  expect(REVIEW_CAPTION).not.toMatch(/struck/);
  expect(REVIEW_CAPTION).toContain(DIFF_LEGEND);
  expect(pairCaption(1, 3)).toContain(DIFF_LEGEND);
});

describe('restoreOutcome', () => {
  const id = 'urn:policy:acme:p';
  test('a restore that changed the deployed set carries its revision', () => {
    expect(restoreOutcome(id, 1, { version: 4, deployed: true, revision: 9, changed: true })).toEqual({
      text: `Restored version 1 of ${id} as version 4 and deployed it`,
      revision: 9,
    });
  });

  test('an undeployed restore says so and carries no revision', () => {
    const outcome = restoreOutcome(id, 2, { version: 5, deployed: false, revision: 9, changed: false });
    expect(outcome.text).toBe(`Restored version 2 of ${id} as version 5; it is not deployed`);
    expect(outcome.revision).toBeUndefined();
  });

  test('a deployed restore that changed nothing names the revision in words only', () => {
    const outcome = restoreOutcome(id, 2, { version: 5, deployed: true, revision: 9, changed: false });
    expect(outcome.text).toContain('already the same (revision 9)');
    expect(outcome.revision).toBeUndefined();
  });
});

describe('the versions calls', () => {
  const recorder = (body: unknown) => {
    const calls: Array<{ url: string; method: string | undefined }> = [];
    const fetchImpl: Fetch = (url, init) => {
      calls.push({ url, method: init?.method });
      return Promise.resolve(new Response(JSON.stringify(body)));
    };
    return { calls, api: new ConsoleApi('tok', fetchImpl) };
  };

  test('list, show and restore go to pap with the id encoded, and deploy only when asked', async () => {
    const { calls, api } = recorder({ version: 3, deployed: true, revision: 2, changed: true });
    await api.versions('policy', 'urn:policy:acme:a b');
    await api.version('timer', 'urn:timer:acme:t', 2);
    await api.restore('policy', 'urn:policy:acme:p', 1, true);
    await api.restore('policy', 'urn:policy:acme:p', 1, false);
    expect(calls).toEqual([
      { url: '/ws/policy/urn%3Apolicy%3Aacme%3Aa%20b/versions', method: 'GET' },
      { url: '/ws/timer/urn%3Atimer%3Aacme%3At/versions/2', method: 'GET' },
      { url: '/ws/policy/urn%3Apolicy%3Aacme%3Ap/versions/1/restore?deploy=true', method: 'POST' },
      { url: '/ws/policy/urn%3Apolicy%3Aacme%3Ap/versions/1/restore', method: 'POST' },
    ]);
  });
});
