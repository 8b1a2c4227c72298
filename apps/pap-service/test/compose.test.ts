import request from 'supertest';
import { createInbox } from 'nats';
import { ALL_SCOPES, decodeSnapshot, policySubjects } from '@custos/contracts';
import { createMetrics } from '@custos/service-kit';
import { dropDatabase, TEST_NATS_URL, TestAuthority, uniqueNatsPrefix, unusedDatabaseUrl, waitFor } from '@custos/test-kit';
import { SERVICE_NAME } from '../src/app';
import { composePap, type ComposedPap } from '../src/compose';
import { readPapConfig } from '../src/config';
import { deployedPolicy, policyXml, testLogger } from './harness';
import { ChangeCollector, connectTest } from './nats-helpers';

/** composePap as main.ts uses it: from the config alone to a pap that creates its database and propagates. */
const database = unusedDatabaseUrl('pap_compose');
const prefix = uniqueNatsPrefix();
let authority: TestAuthority;
let pap: ComposedPap;

beforeAll(async () => {
  authority = await new TestAuthority().start();
  const config = readPapConfig({ DATABASE_URL: database.url, AUTH_URL: authority.url, NATS_URL: TEST_NATS_URL, NATS_PREFIX: prefix });
  pap = composePap(config, { logger: testLogger(), metrics: createMetrics(SERVICE_NAME, false) });
  await pap.start();
});

afterAll(async () => {
  await pap.stop();
  await authority.stop();
  await dropDatabase(database.name);
  const nc = await connectTest(TEST_NATS_URL);
  await (await nc.jetstreamManager()).streams.delete(policySubjects(prefix).stream).catch(() => undefined);
  await nc.close();
});

test('start creates the database, and the app is ready once NATS is connected', async () => {
  await waitFor(async () => (await request(pap.app).get('/health/ready')).body.nats === 'connected', { what: 'the NATS link' });
  const ready = await request(pap.app).get('/health/ready');
  expect(ready.body).toEqual({ ready: true, database: 'up', nats: 'connected', revision: 0, outboxBacklog: 0 });
});

test('a deployed policy reaches the stream and the snapshot without anything but the store waking the publisher', async () => {
  const auth = `Bearer ${authority.mint({ scopes: ALL_SCOPES, solutions: ['acme'] })}`;
  const id = 'urn:policy:acme:composed';
  const added = await request(pap.app).post('/ws/policy').set('Authorization', auth).type('application/xml').send(policyXml(id));
  expect(added.status).toBe(201);
  const deployed = await request(pap.app).post(`/ws/policy/${id}/deploy`).set('Authorization', auth);
  expect(deployed.headers['policy-revision']).toBe('1');

  const nc = await connectTest(TEST_NATS_URL);
  try {
    const collector = await ChangeCollector.start(nc, policySubjects(prefix).stream);
    const received = await collector.waitForCount(1);
    await collector.stop();
    expect(received.map((r) => [r.change, r.msgId])).toEqual([
      [{ revision: 1, type: 'deploy', policy: deployedPolicy(id, policyXml(id), 1) }, `${prefix}:1`],
    ]);

    const inbox = createInbox();
    const messages: Uint8Array[] = [];
    const subscription = nc.subscribe(inbox, { callback: (_error, msg) => messages.push(msg.data) });
    await nc.flush();
    nc.publish(policySubjects(prefix).snapshot, JSON.stringify({ requester: 'compose-test' }), { reply: inbox });
    await waitFor(() => messages.some((data) => msgLast(data)), { what: 'the last snapshot part' });
    subscription.unsubscribe();
    expect(decodeSnapshot(messages)).toEqual({ revision: 1, policies: [deployedPolicy(id, policyXml(id), 1)], components: [] });
  } finally {
    await nc.close();
  }
});

const msgLast = (data: Uint8Array): boolean => (JSON.parse(Buffer.from(data).toString('utf8')) as { last?: boolean }).last === true;
