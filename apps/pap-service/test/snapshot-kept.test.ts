import request from 'supertest';
import { SnapshotAssembler, type PolicySnapshot } from '@custos/contracts';
import { answerSnapshotRequest } from '../src/propagation/snapshot-answer';
import { SnapshotCache } from '../src/propagation/snapshot-cache';
import { policyXml, startHarness, type Harness } from './harness';

let h: Harness;
let admin: string;

beforeAll(async () => {
  h = await startHarness();
  admin = h.bearer({ solutions: ['*'] });
  for (const id of ['urn:policy:acme:one', 'urn:policy:acme:two']) await deploy(id);
});

afterAll(async () => {
  await h.close();
});

async function deploy(id: string): Promise<void> {
  expect((await request(h.app).post('/ws/policy').set('Authorization', admin).type('application/xml').send(policyXml(id))).status).toBe(201);
  expect((await request(h.app).post(`/ws/policy/${id}/deploy`).set('Authorization', admin)).body).toBe(true);
}

const MAX_PAYLOAD = 1024 * 1024;
const answer = (cache: SnapshotCache, ids?: string[]) =>
  answerSnapshotRequest({ requester: 'test', ...(ids === undefined ? {} : { ids }) }, { pool: h.pool, logger: h.logger, maxPayload: MAX_PAYLOAD, cache });

function decode(messages: readonly Uint8Array[]): PolicySnapshot {
  const assembler = new SnapshotAssembler();
  const done = messages.map((message) => assembler.addMessage(message));
  expect(done.at(-1)).toBe(true);
  return assembler.answer() as PolicySnapshot;
}

test('a whole-set answer is kept for its revision and read again once the revision moved', async () => {
  const cache = new SnapshotCache();
  const first = await answer(cache);
  // The very messages again: nothing was read or encoded for the second request.
  expect(await answer(cache)).toBe(first);
  expect(decode(first).policies.map((policy) => policy.id)).toEqual(['urn:policy:acme:one', 'urn:policy:acme:two']);

  await deploy('urn:policy:acme:three');
  const after = await answer(cache);
  expect(after).not.toBe(first);
  const snapshot = decode(after);
  expect(snapshot.revision).toBe(decode(first).revision + 1);
  expect(snapshot.policies.map((policy) => policy.id)).toEqual(['urn:policy:acme:one', 'urn:policy:acme:three', 'urn:policy:acme:two']);
  expect(await answer(cache)).toBe(after);
});

test('requests that arrive together share one read', async () => {
  const cache = new SnapshotCache();
  const [a, b, c] = await Promise.all([answer(cache), answer(cache), answer(cache)]);
  expect(b).toBe(a);
  expect(c).toBe(a);
});

test("an explanation's documents are read on their own and leave the kept answer alone", async () => {
  const cache = new SnapshotCache();
  const whole = await answer(cache);
  const some = await answer(cache, ['urn:policy:acme:one']);
  expect(decode(some).policies.map((policy) => policy.id)).toEqual(['urn:policy:acme:one']);
  expect(await answer(cache)).toBe(whole);
});

test('a kept answer is handed out only for the payload size it was cut for', async () => {
  const cache = new SnapshotCache();
  const large = await answer(cache);
  const small = await answerSnapshotRequest({ requester: 'test' }, { pool: h.pool, logger: h.logger, maxPayload: 600, cache });
  expect(small.length).toBeGreaterThan(large.length);
  expect(decode(small)).toEqual(decode(large));
});
