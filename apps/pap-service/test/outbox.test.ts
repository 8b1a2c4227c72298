import request from 'supertest';
import { nanos, RetentionPolicy, type NatsConnection } from 'nats';
import { policySubjects } from '@custos/contracts';
import { TEST_NATS_URL, uniqueNatsPrefix, waitFor } from '@custos/test-kit';
import type { NatsLink } from '../src/propagation/nats-link';
import { OUTBOX_LOCK_KEY, OutboxPublisher } from '../src/propagation/outbox-publisher';
import { clusterSize, ensurePolicyStream } from '../src/propagation/stream';
import { POLICY_KIND, type PolicyMetadata } from '../src/documents/policy-kind';
import { DocumentStore } from '../src/store/documents';
import { readStats } from '../src/store/stats';
import { deployedPolicy, outbox, policyXml, startHarness, type Harness } from './harness';
import { ChangeCollector, connectLink, connectTest } from './nats-helpers';

let h: Harness;
let prefix: string;
let subjects: ReturnType<typeof policySubjects>;
let link: NatsLink;
let nc: NatsConnection;
let publisher: OutboxPublisher;
let collector: ChangeCollector;
/** The policy store on its own, waking no publisher: only the one a test pumps sends what it changes. */
let policies: DocumentStore<PolicyMetadata>;
const extraPublishers: OutboxPublisher[] = [];
const extraPrefixes: string[] = [];

beforeAll(async () => {
  h = await startHarness({ onChange: () => publisher.wake() });
  policies = new DocumentStore(h.pool, POLICY_KIND.table, () => undefined);
  prefix = uniqueNatsPrefix();
  subjects = policySubjects(prefix);
  link = await connectLink(TEST_NATS_URL, h.logger);
  nc = await connectTest(TEST_NATS_URL);
  // Only in-process wake-ups drive this publisher: its safety-net timer is far off.
  publisher = new OutboxPublisher({
    pool: h.pool,
    link,
    prefix,
    logger: h.logger,
    registry: h.metrics.registry,
    intervalMs: 600_000,
  }).start();
  const jsm = await nc.jetstreamManager();
  await waitFor(() => jsm.streams.info(subjects.stream), { what: 'the publisher to create the stream' });
  collector = await ChangeCollector.start(nc, subjects.stream);
});

afterAll(async () => {
  await collector?.stop();
  for (const extra of extraPublishers) await extra.stop();
  await publisher?.stop();
  const jsm = await nc.jetstreamManager();
  for (const p of [prefix, ...extraPrefixes]) await jsm.streams.delete(policySubjects(p).stream).catch(() => undefined);
  await nc.close();
  await link.close();
  await h.close();
});

const add = (id: string) =>
  request(h.app).post('/ws/policy').set('Authorization', h.bearer()).type('application/xml').send(policyXml(id));
const call = (method: 'get' | 'post' | 'put' | 'delete', path: string) =>
  request(h.app)[method](path).set('Authorization', h.bearer());

const extra = (options: Partial<ConstructorParameters<typeof OutboxPublisher>[0]>) => {
  const created = new OutboxPublisher({ pool: h.pool, link, prefix, logger: h.logger, intervalMs: 600_000, ...options });
  extraPublishers.push(created);
  return created;
};

test('the publisher creates the stream with the contracted settings', async () => {
  const info = await (await nc.jetstreamManager()).streams.info(subjects.stream);
  expect(info.config.subjects).toEqual([`${prefix}.policy.changes`]);
  expect(info.config.retention).toBe(RetentionPolicy.Limits);
  expect(info.config.max_age).toBe(nanos(7 * 24 * 3600 * 1000));
  expect(info.config.duplicate_window).toBe(nanos(2 * 60 * 1000));
});

test('the stream keeps as many copies as the cluster has servers, at most 3; one on a single server', async () => {
  expect((await (await nc.jetstreamManager()).streams.info(subjects.stream)).config.num_replicas).toBe(1);
  expect(clusterSize(nc.info)).toBe(1);
  expect(clusterSize({ connect_urls: ['a:4222'] })).toBe(1);
  expect(clusterSize({ cluster: 'c', connect_urls: ['a:4222', 'b:4222', 'c:4222', 'd:4222', 'e:4222'] })).toBe(5);
  expect(clusterSize({ cluster: 'c' })).toBe(1);
});

test('an existing stream with other settings is brought up to date', async () => {
  const other = uniqueNatsPrefix();
  extraPrefixes.push(other);
  const jsm = await nc.jetstreamManager();
  await jsm.streams.add({ name: policySubjects(other).stream, subjects: [policySubjects(other).changes], max_age: nanos(3600_000) });
  await ensurePolicyStream(nc, other);
  const info = await jsm.streams.info(policySubjects(other).stream);
  expect(info.config.max_age).toBe(nanos(7 * 24 * 3600 * 1000));
  expect(info.config.duplicate_window).toBe(nanos(2 * 60 * 1000));
});

test('every change reaches a JetStream consumer in revision order, with msgID <prefix>:<revision>', async () => {
  const a = 'urn:policy:acme:a';
  const b = 'urn:policy:acme:b';
  expect((await add(a)).status).toBe(201);
  expect((await add(b)).status).toBe(201);
  expect((await call('post', `/ws/policy/${a}/deploy`)).headers['policy-revision']).toBe('1');
  expect((await call('post', `/ws/policy/${b}/deploy`)).headers['policy-revision']).toBe('2');
  expect((await call('get', `/ws/policy/${a}/revoke`)).headers['policy-revision']).toBe('3');
  const replaced = await request(h.app)
    .put(`/ws/policy/${b}`)
    .set('Authorization', h.bearer())
    .type('application/xml')
    .send(policyXml(b, { name: 'v2' }));
  expect(replaced.headers['policy-revision']).toBe('4');
  expect((await call('delete', `/ws/policy/${b}`)).headers['policy-revision']).toBe('5');

  const received = await collector.waitForCount(5);
  expect(received.map((r) => r.change)).toEqual([
    { revision: 1, type: 'deploy', policy: deployedPolicy(a, policyXml(a), 1) },
    { revision: 2, type: 'deploy', policy: deployedPolicy(b, policyXml(b), 2) },
    { revision: 3, type: 'revoke', policyId: a },
    { revision: 4, type: 'deploy', policy: deployedPolicy(b, policyXml(b, { name: 'v2' }), 2) },
    { revision: 5, type: 'revoke', policyId: b },
  ]);
  expect(received.map((r) => r.msgId)).toEqual([1, 2, 3, 4, 5].map((n) => `${prefix}:${n}`));
  expect(received.every((r) => r.subject === `${prefix}.policy.changes`)).toBe(true);
  await waitFor(async () => (await outbox(h.pool)).every((e) => e.published), { what: 'rows marked published' });
  expect((await readStats(h.pool)).outboxBacklog).toBe(0);
  const metrics = await h.metrics.registry.getSingleMetricAsString('pap_outbox_published_total');
  expect(metrics).toMatch(/pap_outbox_published_total\{[^}]*\} 5$/m);
});

test('publishing again after a crash before marking is dropped as a duplicate', async () => {
  await h.pool.query('UPDATE pap.outbox SET published_at = NULL');
  const outcome = await publisher.pump();
  expect(outcome).toEqual({ kind: 'published', count: 5 });
  const info = await (await nc.jetstreamManager()).streams.info(subjects.stream);
  expect(info.state.messages).toBe(5);
  expect(info.state.last_seq).toBe(5);
});

test('a change too large for one message goes out as resync', async () => {
  const id = 'urn:policy:acme:large';
  expect(await policies.insert({ id, solution: 'acme', name: null, description: null, xml: policyXml(id) }, { clientId: 'outbox-test', requestId: null })).toBe(true);
  // Through the store, so only the publisher under test is woken.
  const deployed = await policies.deploy(id);
  expect(deployed.revision).toBe(6);
  const small = extra({ maxMessageBytes: 64 });
  expect(await small.pump()).toEqual({ kind: 'published', count: 1 });
  const received = await collector.waitForCount(6);
  expect(received[5]!.change).toEqual({ revision: 6, type: 'resync' });
  expect(received[5]!.msgId).toBe(`${prefix}:6`);
});

test('the timer publishes changes committed without a wake-up (e.g. by another pap)', async () => {
  const timed = extra({ intervalMs: 100 }).start();
  const outcome = await policies.revoke('urn:policy:acme:large');
  expect(outcome.revision).toBe(7);
  const received = await collector.waitForCount(7);
  expect(received[6]!.change).toEqual({ revision: 7, type: 'revoke', policyId: 'urn:policy:acme:large' });
  await timed.stop();
});

test('only the holder of the publisher lock publishes', async () => {
  const other = await h.pool.connect();
  try {
    await other.query('SELECT pg_advisory_lock($1::bigint)', [OUTBOX_LOCK_KEY]);
    await policies.deploy('urn:policy:acme:large');
    expect(await publisher.pump()).toEqual({ kind: 'busy' });
    expect((await outbox(h.pool)).at(-1)).toEqual(expect.objectContaining({ revision: 8, published: false }));
    await other.query('SELECT pg_advisory_unlock($1::bigint)', [OUTBOX_LOCK_KEY]);
  } finally {
    other.release();
  }
  expect(await publisher.pump()).toEqual({ kind: 'published', count: 1 });
  expect((await collector.waitForCount(8))[7]!.change.revision).toBe(8);
});

test('old published rows are pruned, the newest ones kept', async () => {
  await policies.revoke('urn:policy:acme:large');
  await policies.deploy('urn:policy:acme:large');
  const pruner = extra({ keepPublished: 3 });
  expect(await pruner.pump()).toEqual({ kind: 'published', count: 2 });
  expect((await outbox(h.pool)).map((e) => e.revision)).toEqual([8, 9, 10]);
  expect((await collector.waitForCount(10)).map((r) => r.change.revision)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
});

test('many concurrent changes arrive in order, each once', async () => {
  const ids = Array.from({ length: 20 }, (_, i) => `urn:policy:acme:c${i}`);
  for (const id of ids) expect((await add(id)).status).toBe(201);
  const responses = await Promise.all(ids.map((id) => call('post', `/ws/policy/${id}/deploy`)));
  expect(responses.every((r) => r.body === true)).toBe(true);
  const received = await collector.waitForCount(30);
  expect(received.map((r) => r.change.revision)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
  const deployedIds = received.slice(10).map((r) => (r.change.type === 'deploy' ? r.change.policy.id : ''));
  expect([...deployedIds].sort()).toEqual([...ids].sort());
});
