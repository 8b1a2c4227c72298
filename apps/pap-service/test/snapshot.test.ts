import request from 'supertest';
import { createInbox, type NatsConnection } from 'nats';
import { SnapshotAssembler, decodeSnapshot, encodeSnapshot, policySubjects, type PolicySnapshot, type SnapshotChunk } from '@custos/contracts';
import { TEST_NATS_URL, uniqueNatsPrefix, waitFor } from '@custos/test-kit';
import type { NatsLink } from '../src/propagation/nats-link';
import { readSnapshot } from '../src/propagation/snapshot';
import { SnapshotResponder } from '../src/propagation/snapshot-responder';
import { deployedPolicy, policyXml, revision, startHarness, type Harness } from './harness';
import { connectLink, connectTest } from './nats-helpers';

let h: Harness;
let prefix: string;
let link: NatsLink;
let nc: NatsConnection;
const responders: SnapshotResponder[] = [];

const ids = ['urn:policy:acme:b', 'urn:policy:acme:a', 'urn:policy:globex:Z', 'urn:policy:acme:undeployed', 'urn:policy:acme:revoked'];
const xmlOf = (id: string) => policyXml(id, { description: `ünïcødé € ${id}` });

beforeAll(async () => {
  h = await startHarness();
  prefix = uniqueNatsPrefix();
  link = await connectLink(TEST_NATS_URL, h.logger);
  nc = await connectTest(TEST_NATS_URL);
  const admin = h.bearer({ solutions: ['*'] });
  for (const id of ids) {
    const res = await request(h.app).post('/ws/policy').set('Authorization', admin).type('application/xml').send(xmlOf(id));
    expect(res.status).toBe(201);
  }
  for (const id of ['urn:policy:acme:b', 'urn:policy:acme:a', 'urn:policy:globex:Z', 'urn:policy:acme:revoked']) {
    expect((await request(h.app).post(`/ws/policy/${id}/deploy`).set('Authorization', admin)).body).toBe(true);
  }
  expect((await request(h.app).post('/ws/policy/urn:policy:acme:revoked/revoke').set('Authorization', admin)).body).toBe(true);
});

afterAll(async () => {
  for (const responder of responders) await responder.stop();
  await nc.close();
  await link.close();
  await h.close();
});

const toChunks = encodeSnapshot;

/** Joins chunks back into the snapshot, as a pdp does. */
const fromChunks = decodeSnapshot;

const expected = (): PolicySnapshot => ({
  revision: 5,
  // Deployed in the order b, a, Z at revisions 1, 2, 3.
  policies: [
    deployedPolicy('urn:policy:acme:a', xmlOf('urn:policy:acme:a'), 2),
    deployedPolicy('urn:policy:acme:b', xmlOf('urn:policy:acme:b'), 1),
    deployedPolicy('urn:policy:globex:Z', xmlOf('urn:policy:globex:Z'), 3),
  ],
  components: [],
});

/** Sends a snapshot request and collects chunks until `last`. */
async function requestSnapshot(subject: string, body: string | undefined = JSON.stringify({ requester: 'test' })): Promise<SnapshotChunk[]> {
  const inbox = createInbox();
  const chunks: SnapshotChunk[] = [];
  const subscription = nc.subscribe(inbox, { callback: (_error, msg) => chunks.push(msg.json<SnapshotChunk>()) });
  try {
    await nc.flush();
    nc.publish(subject, body, { reply: inbox });
    // An unchanged answer (format 3) is one message without `last`.
    await waitFor(() => chunks.some((c) => c.last || (c as { format?: number }).format === 3), { what: 'the last snapshot chunk' });
    return chunks;
  } finally {
    subscription.unsubscribe();
  }
}

test('the snapshot holds the deployed policies ordered by id at the current revision', async () => {
  expect(await revision(h.pool)).toBe(5);
  expect(await readSnapshot(h.pool)).toEqual(expected());
});

test('chunks: byte cuts, base64, indexed from 0, last marked, joined back exactly', () => {
  const snapshot = expected();
  const chunks = toChunks(snapshot, 7);
  const bytes = Buffer.byteLength(JSON.stringify(snapshot));
  expect(chunks).toHaveLength(Math.ceil(bytes / 7));
  chunks.forEach((chunk, index) => {
    expect(chunk.index).toBe(index);
    expect(chunk.last).toBe(index === chunks.length - 1);
    expect(Buffer.from(chunk.data, 'base64').length).toBeLessThanOrEqual(7);
  });
  expect(fromChunks(chunks)).toEqual(snapshot);
  const single = toChunks({ revision: 0, policies: [] }, 1024);
  expect(single).toEqual([{ index: 0, last: true, data: Buffer.from('{"revision":0,"policies":[]}').toString('base64') }]);
  expect(() => toChunks(snapshot, 0)).toThrow();
});

test('the responder answers in many small chunks, in order', async () => {
  const responder = new SnapshotResponder({ pool: h.pool, link, prefix, logger: h.logger, chunkBytes: 64 }).start();
  responders.push(responder);
  await responder.flush();
  const chunks = await requestSnapshot(policySubjects(prefix).snapshot);
  expect(chunks.length).toBeGreaterThan(10);
  expect(chunks.map((c) => c.index)).toEqual(chunks.map((_, i) => i));
  expect(chunks.filter((c) => c.last)).toHaveLength(1);
  expect(chunks.at(-1)!.last).toBe(true);
  for (const chunk of chunks) expect(Buffer.from(chunk.data, 'base64').length).toBeLessThanOrEqual(64);
  expect(fromChunks(chunks)).toEqual(expected());
});

test('requests without a reply subject or with a bad body do not stop the responder', async () => {
  nc.publish(policySubjects(prefix).snapshot, 'not json');
  const chunks = await requestSnapshot(policySubjects(prefix).snapshot, 'not json');
  expect(fromChunks(chunks)).toEqual(expected());
});

test('a later request sees later changes', async () => {
  const res = await request(h.app).post('/ws/policy/urn:policy:acme:undeployed/deploy').set('Authorization', h.bearer());
  expect(res.headers['policy-revision']).toBe('6');
  const chunks = await requestSnapshot(policySubjects(prefix).snapshot);
  const snapshot = fromChunks(chunks);
  expect(snapshot.revision).toBe(6);
  expect(snapshot.policies.map((p) => p.id)).toEqual([
    'urn:policy:acme:a',
    'urn:policy:acme:b',
    'urn:policy:acme:undeployed',
    'urn:policy:globex:Z',
  ]);
});

test('by default a chunk fits the server’s max payload once encoded', async () => {
  const otherPrefix = uniqueNatsPrefix();
  const responder = new SnapshotResponder({ pool: h.pool, link, prefix: otherPrefix, logger: h.logger }).start();
  responders.push(responder);
  const size = responder.chunkBytesFor(nc);
  const maxPayload = nc.info!.max_payload;
  expect(size % 3).toBe(0);
  expect((size / 3) * 4).toBeLessThanOrEqual(maxPayload - 4096);
  await responder.flush();
  const chunks = await requestSnapshot(policySubjects(otherPrefix).snapshot);
  expect(chunks).toHaveLength(1);
  expect(fromChunks(chunks).revision).toBe(6);
});

test('a requester that reads parts (format 2) gets whole documents per message, without base64', async () => {
  const otherPrefix = uniqueNatsPrefix();
  const responder = new SnapshotResponder({ pool: h.pool, link, prefix: otherPrefix, logger: h.logger }).start();
  responders.push(responder);
  await responder.flush();
  const messages = (await requestSnapshot(policySubjects(otherPrefix).snapshot, JSON.stringify({ requester: 'test', formats: [2] }))) as unknown[];
  expect(messages).toHaveLength(1);
  expect(messages[0]).toMatchObject({ format: 2, index: 0, last: true, revision: 6, components: [] });
  const assembler = new SnapshotAssembler();
  expect(assembler.add(messages[0])).toBe(true);
  expect(assembler.result()).toEqual(await readSnapshot(h.pool));
});

test('a requester that gives the revision it holds gets one unchanged message while pap is at it, else the set (issue 26)', async () => {
  const otherPrefix = uniqueNatsPrefix();
  const responder = new SnapshotResponder({ pool: h.pool, link, prefix: otherPrefix, logger: h.logger }).start();
  responders.push(responder);
  await responder.flush();
  const current = await revision(h.pool);
  const ask = async (known: unknown) =>
    (await requestSnapshot(policySubjects(otherPrefix).snapshot, JSON.stringify({ requester: 'test', formats: [2], known }))) as unknown[];
  expect(await ask(current)).toEqual([{ format: 3, revision: current }]);
  // Another revision (behind, or one pap never had), or no revision at all: the whole set, as to any requester.
  for (const known of [current - 1, current + 1, 'latest', -1]) {
    const messages = await ask(known);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatchObject({ format: 2, index: 0, last: true, revision: current });
    const assembler = new SnapshotAssembler();
    expect(assembler.add(messages[0])).toBe(true);
    expect(assembler.result()).toEqual(await readSnapshot(h.pool));
  }
});

test('a requester that names ids gets only those deployed documents, at the current revision (issue 26: explanations)', async () => {
  const otherPrefix = uniqueNatsPrefix();
  const responder = new SnapshotResponder({ pool: h.pool, link, prefix: otherPrefix, logger: h.logger }).start();
  responders.push(responder);
  await responder.flush();
  const whole = await readSnapshot(h.pool);
  const wanted = [whole.policies[1]!.id, 'urn:policy:acme:never-deployed'];
  const messages = (await requestSnapshot(policySubjects(otherPrefix).snapshot, JSON.stringify({ requester: 'test', formats: [2], ids: wanted }))) as unknown[];
  const assembler = new SnapshotAssembler();
  expect(assembler.add(messages[0])).toBe(true);
  expect(assembler.result()).toEqual({ ...whole, policies: [whole.policies[1]] });
  // A list that is not one of ids asks for the whole set.
  const all = (await requestSnapshot(policySubjects(otherPrefix).snapshot, JSON.stringify({ requester: 'test', formats: [2], ids: [1] }))) as unknown[];
  const again = new SnapshotAssembler();
  expect(again.add(all[0])).toBe(true);
  expect(again.result()).toEqual(whole);
});
