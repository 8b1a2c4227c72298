import request from 'supertest';
import { createInbox, type NatsConnection } from 'nats';
import { SnapshotAssembler, policySubjects, type PolicySnapshot } from '@custos/contracts';
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

/** A message of a snapshot answer as it arrived (parsed): a part, a piece of one, or the unchanged answer. */
type AnswerMessage = Record<string, unknown>;

/** Reads the messages back into the snapshot, as a pdp does. */
function fromMessages(messages: readonly AnswerMessage[]): PolicySnapshot {
  const assembler = new SnapshotAssembler();
  const done = messages.map((message) => assembler.add(message));
  expect(done.at(-1)).toBe(true);
  return assembler.result();
}

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

/** Sends a snapshot request and collects messages until the last part. */
async function requestSnapshot(subject: string, body: string | undefined = JSON.stringify({ requester: 'test' })): Promise<AnswerMessage[]> {
  const inbox = createInbox();
  const messages: AnswerMessage[] = [];
  // Read as they come, as a pdp reads them: the answer is complete when the reader says so.
  const reader = new SnapshotAssembler();
  let complete = false;
  const subscription = nc.subscribe(inbox, {
    callback: (_error, msg) => {
      messages.push(msg.json<AnswerMessage>());
      complete = reader.add(messages.at(-1));
    },
  });
  try {
    await nc.flush();
    nc.publish(subject, body, { reply: inbox });
    await waitFor(() => complete, { what: 'the last snapshot message' });
    return messages;
  } finally {
    subscription.unsubscribe();
  }
}

test('the snapshot holds the deployed policies ordered by id at the current revision', async () => {
  expect(await revision(h.pool)).toBe(5);
  expect(await readSnapshot(h.pool)).toEqual(expected());
});

test('the responder answers in messages no larger than its payload limit, in order, parts cut into pieces', async () => {
  const maxPayload = 4096 + 300;
  const responder = new SnapshotResponder({ pool: h.pool, link, prefix, logger: h.logger, maxPayload }).start();
  responders.push(responder);
  await responder.flush();
  const inbox = createInbox();
  const raw: Uint8Array[] = [];
  const reader = new SnapshotAssembler();
  let complete = false;
  const subscription = nc.subscribe(inbox, {
    callback: (_error, msg) => {
      raw.push(msg.data);
      complete = reader.addMessage(msg.data);
    },
  });
  await nc.flush();
  nc.publish(policySubjects(prefix).snapshot, JSON.stringify({ requester: 'test' }), { reply: inbox });
  await waitFor(() => complete, { what: 'the last snapshot message' });
  subscription.unsubscribe();
  for (const data of raw) expect(data.length).toBeLessThanOrEqual(300);
  const messages = raw.map((data) => JSON.parse(Buffer.from(data).toString('utf8')) as AnswerMessage);
  // Every policy's document is larger than 300 bytes: each has a part of its own, in pieces.
  expect(messages.filter((m) => 'piece' in m).length).toBeGreaterThan(6);
  expect([...new Set(messages.map((m) => m.index))]).toEqual([0, 1, 2, 3]);
  // The last part is the last policy's, in pieces: its `last` is inside them.
  expect(messages.filter((m) => m.last === true)).toHaveLength(0);
  expect(fromMessages(messages)).toEqual(expected());
});

test('requests without a reply subject or with a bad body do not stop the responder', async () => {
  nc.publish(policySubjects(prefix).snapshot, 'not json');
  const messages = await requestSnapshot(policySubjects(prefix).snapshot, 'not json');
  expect(fromMessages(messages)).toEqual(expected());
});

test('a later request sees later changes', async () => {
  const res = await request(h.app).post('/ws/policy/urn:policy:acme:undeployed/deploy').set('Authorization', h.bearer());
  expect(res.headers['policy-revision']).toBe('6');
  const snapshot = fromMessages(await requestSnapshot(policySubjects(prefix).snapshot));
  expect(snapshot.revision).toBe(6);
  expect(snapshot.policies.map((p) => p.id)).toEqual([
    'urn:policy:acme:a',
    'urn:policy:acme:b',
    'urn:policy:acme:undeployed',
    'urn:policy:globex:Z',
  ]);
});

test('by default the whole set goes in one part within the server’s max payload, whole documents, no base64', async () => {
  const otherPrefix = uniqueNatsPrefix();
  const responder = new SnapshotResponder({ pool: h.pool, link, prefix: otherPrefix, logger: h.logger }).start();
  responders.push(responder);
  expect(responder.maxPayloadFor(nc)).toBe(nc.info!.max_payload);
  await responder.flush();
  const messages = await requestSnapshot(policySubjects(otherPrefix).snapshot);
  expect(messages).toHaveLength(1);
  expect(messages[0]).toMatchObject({ format: 2, index: 0, last: true, revision: 6, components: [] });
  expect(fromMessages(messages)).toEqual(await readSnapshot(h.pool));
});

test('a requester that gives the revision it holds gets one unchanged message while pap is at it, else the set (issue 26)', async () => {
  const otherPrefix = uniqueNatsPrefix();
  const responder = new SnapshotResponder({ pool: h.pool, link, prefix: otherPrefix, logger: h.logger }).start();
  responders.push(responder);
  await responder.flush();
  const current = await revision(h.pool);
  const ask = async (known: unknown) =>
    (await requestSnapshot(policySubjects(otherPrefix).snapshot, JSON.stringify({ requester: 'test', known })));
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
  const messages = (await requestSnapshot(policySubjects(otherPrefix).snapshot, JSON.stringify({ requester: 'test', ids: wanted })));
  const assembler = new SnapshotAssembler();
  expect(assembler.add(messages[0])).toBe(true);
  expect(assembler.result()).toEqual({ ...whole, policies: [whole.policies[1]] });
  // A list that is not one of ids asks for the whole set.
  const all = (await requestSnapshot(policySubjects(otherPrefix).snapshot, JSON.stringify({ requester: 'test', ids: [1] })));
  const again = new SnapshotAssembler();
  expect(again.add(all[0])).toBe(true);
  expect(again.result()).toEqual(whole);
});
