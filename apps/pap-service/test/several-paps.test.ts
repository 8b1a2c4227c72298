import request from 'supertest';
import { createInbox, type NatsConnection } from 'nats';
import { policySubjects, type SnapshotPart } from '@custos/contracts';
import { TEST_NATS_URL, uniqueNatsPrefix, waitFor } from '@custos/test-kit';
import { POLICY_KIND, type PolicyMetadata } from '../src/documents/policy-kind';
import type { NatsLink } from '../src/propagation/nats-link';
import { OUTBOX_LOCK_KEY, OutboxPublisher } from '../src/propagation/outbox-publisher';
import { SnapshotResponder } from '../src/propagation/snapshot-responder';
import { DocumentStore } from '../src/store/documents';
import { outbox, policyXml, startHarness, type Harness } from './harness';
import { ChangeCollector, connectLink, connectTest } from './nats-helpers';

/**
 * Several pap instances on one database and one NATS (docs/api.md, "Several paps"): each publishes only while it
 * holds the publisher lock, so every revision reaches the stream once and in order whichever pap committed it, a
 * pap that dies holding the lock hands over with its connection, and one pap answers each snapshot request.
 */
let h: Harness;
let prefix: string;
let nc: NatsConnection;
let collector: ChangeCollector;
const links: NatsLink[] = [];
const publishers: OutboxPublisher[] = [];

/** A pap's propagation half: its own NATS link and publisher, woken only by its own commits (no safety-net poll). */
async function papPublisher(): Promise<{ publisher: OutboxPublisher; store: DocumentStore<PolicyMetadata> }> {
  const link = await connectLink(TEST_NATS_URL, h.logger);
  links.push(link);
  const publisher = new OutboxPublisher({ pool: h.pool, link, prefix, logger: h.logger, intervalMs: 600_000 }).start();
  publishers.push(publisher);
  return { publisher, store: new DocumentStore(h.pool, POLICY_KIND.table, () => publisher.wake()) };
}

beforeAll(async () => {
  h = await startHarness();
  prefix = uniqueNatsPrefix();
  nc = await connectTest(TEST_NATS_URL);
  const ids = Array.from({ length: 24 }, (_, i) => `urn:policy:acme:p${i}`);
  for (const id of ids) {
    const response = await request(h.app).post('/ws/policy').set('Authorization', h.bearer()).type('application/xml').send(policyXml(id));
    expect(response.status).toBe(201);
  }
});

afterAll(async () => {
  await collector?.stop();
  for (const publisher of publishers) await publisher.stop();
  for (const link of links) await link.close();
  await (await nc.jetstreamManager()).streams.delete(policySubjects(prefix).stream).catch(() => undefined);
  await nc.close();
  await h.close();
});

test('changes committed concurrently through two paps reach the stream once each, in revision order', async () => {
  const a = await papPublisher();
  const b = await papPublisher();
  const jsm = await nc.jetstreamManager();
  await waitFor(() => jsm.streams.info(policySubjects(prefix).stream), { what: 'the stream' });
  collector = await ChangeCollector.start(nc, policySubjects(prefix).stream);
  const deploys = Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? a.store : b.store).deploy(`urn:policy:acme:p${i}`));
  const revisions = (await Promise.all(deploys)).map((outcome) => outcome.revision);
  expect([...revisions].sort((x, y) => x - y)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
  const received = await collector.waitForCount(20);
  expect(received.map((r) => r.change.revision)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
  expect((await outbox(h.pool)).every((row) => row.published)).toBe(true);
});

test('a pap that dies holding the publisher lock hands publishing over with its connection', async () => {
  const survivor = publishers[1];
  if (survivor === undefined) throw new Error('the first test starts two publishers');
  const store = new DocumentStore(h.pool, POLICY_KIND.table, () => survivor.wake());
  // The dying pap, in the middle of a pass: its session holds the lock.
  const dying = await h.pool.connect();
  await dying.query('SELECT pg_advisory_lock($1::bigint)', [OUTBOX_LOCK_KEY]);
  const outcome = await store.deploy('urn:policy:acme:p20');
  expect(await survivor.pump()).toEqual({ kind: 'busy' });
  expect((await outbox(h.pool)).at(-1)).toEqual(expect.objectContaining({ revision: outcome.revision, published: false }));
  // Its connection dies (a killed process): the session ends and with it the lock.
  dying.release(new Error('the pap died'));
  const received = await collector.waitForCount(21);
  expect(received.map((r) => r.change.revision)).toEqual(Array.from({ length: 21 }, (_, i) => i + 1));
});

/** Sends `count` snapshot requests and returns, per request, how many complete answers (`last` parts) came back. */
async function answersPerRequest(responders: SnapshotResponder[], count: number): Promise<number[]> {
  const subject = policySubjects(prefix).snapshot;
  await Promise.all(responders.map((responder) => responder.flush()));
  const lasts = Array.from({ length: count }, () => 0);
  const subscriptions = lasts.map((_, i) => {
    const inbox = createInbox();
    const subscription = nc.subscribe(inbox, {
      callback: (_error, msg) => {
        if (msg.json<SnapshotPart>().last) lasts[i] = (lasts[i] ?? 0) + 1;
      },
    });
    return { inbox, subscription };
  });
  await nc.flush();
  for (const { inbox } of subscriptions) nc.publish(subject, JSON.stringify({ requester: 'test' }), { reply: inbox });
  await waitFor(() => lasts.every((n) => n >= 1), { what: 'an answer to every request' });
  // Whatever any responder still had to send is sent before stop() returns; the flushes order it before ours.
  for (const responder of responders) {
    await responder.flush();
    await responder.stop();
  }
  await nc.flush();
  for (const { subscription } of subscriptions) subscription.unsubscribe();
  return lasts;
}

test('with two paps subscribed, each snapshot request gets exactly one answer (one queue group)', async () => {
  const responders = [0, 1].map((i) => new SnapshotResponder({ pool: h.pool, link: links[i] as NatsLink, prefix, logger: h.logger }).start());
  expect(await answersPerRequest(responders, 8)).toEqual(Array.from({ length: 8 }, () => 1));
});

test('control: two responders in different queue groups would answer each request twice', async () => {
  const responders = ['left', 'right'].map((queue, i) =>
    new SnapshotResponder({ pool: h.pool, link: links[i] as NatsLink, prefix, logger: h.logger, queue }).start(),
  );
  expect(await answersPerRequest(responders, 3)).toEqual([2, 2, 2]);
});
