import request from 'supertest';
import { readStoredSnapshot } from '../src/propagation/snapshot';
import { byteOrder, readForward } from '../src/propagation/snapshot-forward';
import { policyXml, startHarness, timerXml, type Harness } from './harness';

let h: Harness;
let admin: string;

beforeAll(async () => {
  h = await startHarness();
  admin = h.bearer({ solutions: ['*'] });
  for (const id of ['urn:policy:acme:b', 'urn:policy:acme:d', 'urn:policy:acme:f']) await deploy(id);
});

afterAll(async () => {
  await h.close();
});

async function add(id: string, name?: string): Promise<void> {
  const body = policyXml(id, name === undefined ? {} : { name });
  expect((await request(h.app).post('/ws/policy').set('Authorization', admin).type('application/xml').send(body)).status).toBe(201);
}

async function deploy(id: string): Promise<void> {
  await add(id);
  expect((await request(h.app).post(`/ws/policy/${id}/deploy`).set('Authorization', admin)).body).toBe(true);
}

test('a kept set brought forward by the changes since is the set read again', async () => {
  const kept = await readStoredSnapshot(h.pool);
  await deploy('urn:policy:acme:a');
  await deploy('urn:policy:acme:c2');
  await deploy('urn:policy:acme:e');
  expect((await request(h.app).post('/ws/policy/urn:policy:acme:d/revoke').set('Authorization', admin)).body).toBe(true);
  const replaced = await request(h.app).put('/ws/policy/urn:policy:acme:f').set('Authorization', admin).type('application/xml').send(policyXml('urn:policy:acme:f', { name: 'v2' }));
  expect(replaced.status).toBeLessThan(300);
  // A change of the deployed set that names no document.
  expect((await request(h.app).put('/ws/solutions/acme/settings').set('Authorization', admin).send({ defaultDecision: 'inhibit' })).status).toBe(200);

  const forward = await readForward(h.pool, kept);
  const read = await readStoredSnapshot(h.pool);
  expect(forward).toBeDefined();
  expect(forward?.revision).toBeGreaterThan(kept.revision);
  expect(forward).toEqual(read);
  expect(forward?.policies.map((document) => document.id)).toContain('urn:policy:acme:c2');
  expect(forward?.policies.map((document) => document.id)).not.toContain('urn:policy:acme:d');
});

test('a change set (documents and a timer deployed, a policy revoked in one revision) brought forward is the set read again', async () => {
  const kept = await readStoredSnapshot(h.pool);
  const answer = await request(h.app)
    .post('/ws/changes')
    .set('Authorization', admin)
    .send({
      changes: [
        { op: 'add', kind: 'policy', xml: policyXml('urn:policy:acme:cs-a') },
        { op: 'add', kind: 'timer', xml: timerXml('urn:timer:acme:cs-t') },
        { op: 'deploy', kind: 'policy', id: 'urn:policy:acme:cs-a' },
        { op: 'deploy', kind: 'timer', id: 'urn:timer:acme:cs-t' },
        { op: 'revoke', kind: 'policy', id: 'urn:policy:acme:b' },
      ],
    });
  expect(answer.body).toEqual({ revision: kept.revision + 1, changed: true });
  const forward = await readForward(h.pool, kept);
  expect(forward).toEqual(await readStoredSnapshot(h.pool));
  expect(forward?.policies.map((document) => document.id)).toEqual(expect.arrayContaining(['urn:policy:acme:cs-a', 'urn:timer:acme:cs-t']));
  expect(forward?.policies.map((document) => document.id)).not.toContain('urn:policy:acme:b');
});

test('at the same revision the kept set is the answer', async () => {
  const kept = await readStoredSnapshot(h.pool);
  expect(await readForward(h.pool, kept)).toBe(kept);
});

test('without the outbox rows of every revision since, the set must be read again', async () => {
  const kept = await readStoredSnapshot(h.pool);
  await deploy('urn:policy:acme:g');
  await h.pool.query('DELETE FROM pap.outbox WHERE revision > $1', [kept.revision]);
  expect(await readForward(h.pool, kept)).toBeUndefined();
});

test('a resync in the outbox (a write around the API) needs the whole set read again', async () => {
  const kept = await readStoredSnapshot(h.pool);
  await h.pool.query(
    `WITH bumped AS (UPDATE pap.state SET revision = revision + 1 RETURNING revision)
     INSERT INTO pap.outbox (revision, message) SELECT revision, jsonb_build_object('revision', revision, 'type', 'resync') FROM bumped`,
  );
  expect(await readForward(h.pool, kept)).toBeUndefined();
});

test("ids merge in PostgreSQL's byte order, not in UTF-16 code units", () => {
  const ids = ['urn:b', 'urn:\u{1f600}', 'urn:\uff5e', 'urn:a', 'urn:ä', 'urn:', 'urn:a\u{10000}'];
  const bytes = [...ids].sort((left, right) => Buffer.compare(Buffer.from(left), Buffer.from(right)));
  expect([...ids].sort(byteOrder)).toEqual(bytes);
  // JavaScript's own order puts U+FF5E after the astral character: the case the comparison exists for.
  expect([...ids].sort()).not.toEqual(bytes);
});
