import request from 'supertest';
import type { Express } from 'express';
import type { NatsConnection } from 'nats';
import { policySubjects } from '@custos/contracts';
import { createMetrics } from '@custos/service-kit';
import { freePort, startOwnNatsServer, TEST_NATS_URL, uniqueNatsPrefix, waitFor } from '@custos/test-kit';
import { createApp, SERVICE_NAME } from '../src/app';
import { NatsLink } from '../src/propagation/nats-link';
import { OutboxPublisher } from '../src/propagation/outbox-publisher';
import { POLICY_KIND } from '../src/documents/policy-kind';
import { DocumentStore } from '../src/store/documents';
import { outbox, policyXml, startHarness, type Harness } from './harness';
import { ChangeCollector, connectLink, connectTest } from './nats-helpers';

let h: Harness;
let prefix: string;
const cleanups: Array<() => Promise<unknown>> = [];

beforeAll(async () => {
  h = await startHarness();
  prefix = uniqueNatsPrefix();
});

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  await h.close();
});

/** An app whose changes wake `publisher`, like main.ts wires it. */
function appFor(publisher: OutboxPublisher, link: NatsLink): Express {
  return createApp({ ...h.deps, metrics: createMetrics(SERVICE_NAME, false), onChange: () => publisher.wake(), natsState: () => link.state() });
}

async function deployNew(app: Express, id: string): Promise<string> {
  const added = await request(app).post('/ws/policy').set('Authorization', h.bearer()).type('application/xml').send(policyXml(id));
  expect(added.status).toBe(201);
  const deployed = await request(app).post(`/ws/policy/${id}/deploy`).set('Authorization', h.bearer());
  expect(deployed.body).toBe(true);
  return deployed.headers['policy-revision'] as string;
}

test('with NATS unreachable, changes are committed and wait in the outbox; a working publisher sends them in order', async () => {
  const port = await freePort();
  const deadLink = new NatsLink({ servers: `nats://127.0.0.1:${port}`, name: 'pap-test-dead', logger: h.logger, maxRetryMs: 100 }).start();
  cleanups.push(() => deadLink.close());
  const stuck = new OutboxPublisher({ pool: h.pool, link: deadLink, prefix, logger: h.logger, intervalMs: 50 }).start();
  cleanups.push(() => stuck.stop());
  const app = appFor(stuck, deadLink);

  expect(await deployNew(app, 'urn:policy:acme:one')).toBe('1');
  expect(await deployNew(app, 'urn:policy:acme:two')).toBe('2');
  const revoked = await request(app).get('/ws/policy/urn:policy:acme:one/revoke').set('Authorization', h.bearer());
  expect(revoked.headers['policy-revision']).toBe('3');

  expect(deadLink.state()).toBe('connecting');
  expect(await stuck.pump()).toEqual({ kind: 'offline' });
  expect((await outbox(h.pool)).map((e) => [e.revision, e.published])).toEqual([
    [1, false],
    [2, false],
    [3, false],
  ]);
  const ready = await request(app).get('/health/ready');
  expect(ready.status).toBe(200);
  expect(ready.body).toEqual(expect.objectContaining({ ready: true, database: 'up', nats: 'connecting', outboxBacklog: 3 }));
  const metrics = await request(app).get('/metrics');
  expect(metrics.text).toMatch(/^pap_outbox_backlog(\{[^}]*\})? 3$/m);

  // A pap instance with a working connection takes over.
  const link = await connectLink(TEST_NATS_URL, h.logger);
  cleanups.push(() => link.close());
  const nc: NatsConnection = await connectTest(TEST_NATS_URL);
  cleanups.push(async () => {
    await (await nc.jetstreamManager()).streams.delete(policySubjects(prefix).stream).catch(() => undefined);
    await nc.close();
  });
  const working = new OutboxPublisher({ pool: h.pool, link, prefix, logger: h.logger, intervalMs: 600_000 });
  cleanups.push(() => working.stop());
  expect(await working.pump()).toEqual({ kind: 'published', count: 3 });
  const collector = await ChangeCollector.start(nc, policySubjects(prefix).stream);
  cleanups.push(() => collector.stop());
  const received = await collector.waitForCount(3);
  expect(received.map((r) => [r.change.revision, r.change.type, r.msgId])).toEqual([
    [1, 'deploy', `${prefix}:1`],
    [2, 'deploy', `${prefix}:2`],
    [3, 'revoke', `${prefix}:3`],
  ]);
  expect((await outbox(h.pool)).every((e) => e.published)).toBe(true);
});

test('a publish that fails is retried with backoff until JetStream takes it', async () => {
  const ownPrefix = uniqueNatsPrefix();
  const link = await connectLink(TEST_NATS_URL, h.logger);
  const nc = await connectTest(TEST_NATS_URL);
  const jsm = await nc.jetstreamManager();
  const stream = policySubjects(ownPrefix).stream;
  const publisher = new OutboxPublisher({ pool: h.pool, link, prefix: ownPrefix, logger: h.logger, intervalMs: 600_000 });
  try {
    // The first pass creates the stream; nothing is pending.
    expect(await publisher.pump()).toEqual({ kind: 'idle' });
    expect((await jsm.streams.info(stream)).config.name).toBe(stream);
    // The stream disappears behind the publisher's back: the next publish fails.
    await jsm.streams.delete(stream);
    const deployed = await new DocumentStore(h.pool, POLICY_KIND.table, () => undefined).deploy('urn:policy:acme:one');
    expect(deployed.changed).toBe(true);
    const failed = await publisher.pump();
    expect(failed.kind).toBe('failed');
    expect((await outbox(h.pool)).at(-1)).toEqual(expect.objectContaining({ revision: deployed.revision, published: false }));
    // Started, it retries on its own (backoff, no timer tick needed) and recreates the stream.
    publisher.start();
    await waitFor(async () => (await outbox(h.pool)).every((e) => e.published), { what: 'the retried publish' });
    const collector = await ChangeCollector.start(nc, stream);
    const received = await collector.waitForCount(1);
    await collector.stop();
    expect(received.map((r) => [r.change.revision, r.msgId])).toEqual([[deployed.revision, `${ownPrefix}:${deployed.revision}`]]);
  } finally {
    await publisher.stop();
    await jsm.streams.delete(stream).catch(() => undefined);
    await nc.close();
    await link.close();
  }
});

test('the same publisher delivers the backlog once NATS comes up', async () => {
  const server = await startOwnNatsServer({ started: false });
  // Stopped last, after every client of it.
  cleanups.unshift(() => server.destroy());
  const otherPrefix = uniqueNatsPrefix();
  const link = new NatsLink({ servers: server.url, name: 'pap-test-late', logger: h.logger, maxRetryMs: 100 }).start();
  cleanups.push(() => link.close());
  const publisher = new OutboxPublisher({ pool: h.pool, link, prefix: otherPrefix, logger: h.logger, intervalMs: 100 }).start();
  cleanups.push(() => publisher.stop());
  const app = appFor(publisher, link);

  const first = Number(await deployNew(app, 'urn:policy:acme:late-1'));
  const second = Number(await deployNew(app, 'urn:policy:acme:late-2'));
  expect(second).toBe(first + 1);
  const pending = (await outbox(h.pool)).filter((e) => !e.published).map((e) => e.revision);
  expect(pending).toEqual([first, second]);

  await server.start();
  await waitFor(async () => (await outbox(h.pool)).every((e) => e.published), {
    timeoutMs: 15_000,
    what: 'the backlog to be published after NATS came up',
  });
  expect(link.state()).toBe('connected');
  const nc = await connectTest(server.url);
  cleanups.push(() => nc.close());
  const collector = await ChangeCollector.start(nc, policySubjects(otherPrefix).stream);
  cleanups.push(() => collector.stop());
  const received = await collector.waitForCount(2);
  expect(received.map((r) => [r.change.revision, r.msgId])).toEqual([
    [first, `${otherPrefix}:${first}`],
    [second, `${otherPrefix}:${second}`],
  ]);
});
