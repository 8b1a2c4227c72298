import { loadPolicy, loadTimer } from '@custos/policy-engine';
import type { StoredDocument } from '../src/web/logic/api';
import { declaredCron, declaredId, documentTemplate, filterDocuments, formatSize, solutionOf, solutionsOf } from '../src/web/logic/documents';

const doc = (id: string, deployed: boolean, name: string | null = null, description: string | null = null): StoredDocument => ({
  id: { identifier: id },
  name,
  description,
  deployed,
  xml: '<policy/>',
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
});

const DOCS = [
  doc('urn:policy:acme:mask-names', true, 'Mask names'),
  doc('urn:policy:acme:audit', false, null, 'Logs every READ'),
  doc('urn:policy:globex:mask-names', false, 'Globex names'),
];
const ids = (docs: StoredDocument[]) => docs.map((d) => d.id.identifier);

describe('filterDocuments', () => {
  test('no filter keeps everything in order', () => {
    expect(ids(filterDocuments(DOCS, { search: '', solution: '', deployed: 'all' }))).toEqual(ids(DOCS));
  });

  test('search looks at id, name and description, ignoring case and surrounding space', () => {
    expect(ids(filterDocuments(DOCS, { search: ' MASK ', solution: '', deployed: 'all' }))).toEqual(['urn:policy:acme:mask-names', 'urn:policy:globex:mask-names']);
    expect(ids(filterDocuments(DOCS, { search: 'read', solution: '', deployed: 'all' }))).toEqual(['urn:policy:acme:audit']);
  });

  test('solution and state narrow further', () => {
    expect(ids(filterDocuments(DOCS, { search: '', solution: 'acme', deployed: 'undeployed' }))).toEqual(['urn:policy:acme:audit']);
    expect(ids(filterDocuments(DOCS, { search: 'names', solution: '', deployed: 'deployed' }))).toEqual(['urn:policy:acme:mask-names']);
  });
});

test('solutions come from the ids, once each, sorted', () => {
  expect(solutionOf('urn:policy:acme:x')).toBe('acme');
  expect(solutionOf('nonsense')).toBe('');
  expect(solutionsOf(DOCS)).toEqual(['acme', 'globex']);
});

test('sizes count UTF-8 bytes', () => {
  expect(formatSize('a'.repeat(1023))).toBe('1023 B');
  // Two bytes per `é`: 1024 of them are 2 KiB.
  expect(formatSize('é'.repeat(1024))).toBe('2.0 KiB');
  expect(formatSize('a'.repeat(3 * 1024 * 1024))).toBe('3.0 MiB');
});

test('the declared id is read from the root element, whatever its prefix or quotes', () => {
  expect(declaredId(`<policy xmlns="x"\n  id='urn:policy:acme:a' name="A">`)).toBe('urn:policy:acme:a');
  expect(declaredId('<my:timer id="urn:timer:acme:t" cron="x">')).toBe('urn:timer:acme:t');
  expect(declaredId('<mechanism id="urn:policy:acme:a">')).toBeUndefined();
});

test('the declared cron is read from the timer element, as the engine reads it', () => {
  expect(declaredCron(`<t:timer xmlns:t="x"\n  id="urn:timer:acme:t" cron='0 0 7 ? * MON-FRI'>`)).toBe('0 0 7 ? * MON-FRI');
  expect(declaredCron('<policy cron="0 0 2 * * ?">')).toBeUndefined();
  const timer = loadTimer(documentTemplate('timer'));
  if (timer.ok) expect(declaredCron(documentTemplate('timer'))).toBe(timer.timer.cron);
});

test('the templates are documents the engine accepts, with the ids they declare', () => {
  const policy = loadPolicy(documentTemplate('policy'));
  expect(policy.ok).toBe(true);
  if (policy.ok) expect(policy.policy.id).toBe(declaredId(documentTemplate('policy')));
  const timer = loadTimer(documentTemplate('timer'));
  expect(timer.ok).toBe(true);
  if (timer.ok) expect(timer.timer.id).toBe(declaredId(documentTemplate('timer')));
});
