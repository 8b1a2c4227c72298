import { POLICY_KIND } from '../src/documents/policy-kind';
import { TIMER_KIND } from '../src/documents/timer-kind';
import type { DocumentKind } from '../src/documents/kind';
import { DocumentStore, type DocumentMetadata } from '../src/store/documents';
import { policyXml, revision, startHarness, timerXml, type Harness } from './harness';

/** The store itself tells its `onChange` about each committed change of the deployed set, and about nothing else. */
let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});


/** Walks one document through every call; `first` and `second` are two texts of the same id. */
async function expectWakeUpsAfterCommits<M extends DocumentMetadata, R>(kind: DocumentKind<M, R>, first: string, second: string) {
  // Each wake-up starts a read of the revision on another connection of the pool.
  const seen: Array<Promise<number>> = [];
  const store = new DocumentStore(h.pool, kind.table, () => void seen.push(revision(h.pool)));
  const record = kind.validate(first);
  const start = await revision(h.pool);
  const author = { clientId: 'store-test', requestId: null };

  // Nothing the pdps decide with changes: no wake-up.
  expect(await store.insert(record, author)).toBe(true);
  expect(await store.replace(record, author)).toEqual({ found: true, changed: false, revision: undefined });
  expect((await store.revoke(record.id)).result).toBe(false);
  expect(seen).toHaveLength(0);

  expect(await store.deploy(record.id)).toEqual({ result: true, revision: start + 1, changed: true });
  expect((await store.deploy(record.id)).changed).toBe(false);
  expect(await store.replace(kind.validate(second), author)).toEqual({ found: true, changed: true, revision: start + 2 });
  expect(await store.remove(record.id)).toEqual({ result: true, revision: start + 3, changed: true });
  expect((await store.remove(record.id)).result).toBe(false);

  // Called after the commit: the read each wake-up started already saw its change. A read may finish after the
  // next change committed too, so it sees at least its own revision, never an earlier one.
  const reads = await Promise.all(seen);
  expect(reads).toHaveLength(3);
  reads.forEach((read, i) => {
    expect(read).toBeGreaterThanOrEqual(start + 1 + i);
    expect(read).toBeLessThanOrEqual(start + 3);
  });
}

test('the policy store wakes its publisher once per committed change, after the commit', async () => {
  const id = 'urn:policy:acme:watched';
  await expectWakeUpsAfterCommits(POLICY_KIND, policyXml(id), policyXml(id, { name: 'v2' }));
});

test('the timer store wakes its publisher once per committed change, after the commit', async () => {
  const id = 'urn:timer:acme:watched';
  await expectWakeUpsAfterCommits(TIMER_KIND, timerXml(id, '0 0 2 * * ?'), timerXml(id, '0 30 3 * * ?'));
});
