import request from 'supertest';
import { LocalPolicyChannel, SNAPSHOT_PARTS_FORMAT, SnapshotAssembler, parseChange, type PolicyChange } from '@custos/contracts';
import { waitFor } from '@custos/test-kit';
import { readSnapshot } from '../src/propagation/snapshot';
import { deployedPolicy, outbox, policyXml, startHarness, type Harness } from './harness';

/** pap composed for embedded mode: the outbox goes to an in-process channel, which also carries snapshot requests. */
let h: Harness;
const channel = new LocalPolicyChannel();
const received: Array<PolicyChange | string> = [];

beforeAll(async () => {
  channel.subscribeChanges((data) => received.push(parseChange(data)));
  h = await startHarness({ propagation: true, policyChannel: channel });
});

afterAll(() => h.close());

async function addAndDeploy(id: string): Promise<number> {
  const added = await request(h.app).post('/ws/policy').set('Authorization', h.bearer()).type('application/xml').send(policyXml(id));
  expect(added.status).toBe(201);
  const deployed = await request(h.app).post(`/ws/policy/${id}/deploy`).set('Authorization', h.bearer());
  expect(deployed.status).toBe(200);
  return Number(deployed.headers['policy-revision']);
}

test('readiness says propagation is in process', async () => {
  const ready = await request(h.app).get('/health/ready');
  expect(ready.body).toEqual({ ready: true, database: 'up', nats: 'in-process', revision: 0, outboxBacklog: 0 });
});

test('deployed changes reach the channel in revision order, encoded as over NATS, and leave the outbox published', async () => {
  const first = await addAndDeploy('urn:policy:acme:local-1');
  const second = await addAndDeploy('urn:policy:acme:local-2');
  expect(second).toBe(first + 1);
  await waitFor(() => received.length >= 2, { what: 'two changes on the channel' });
  expect(received).toEqual([
    { revision: first, type: 'deploy', policy: deployedPolicy('urn:policy:acme:local-1', policyXml('urn:policy:acme:local-1'), first) },
    { revision: second, type: 'deploy', policy: deployedPolicy('urn:policy:acme:local-2', policyXml('urn:policy:acme:local-2'), second) },
  ]);
  await waitFor(async () => (await outbox(h.pool)).every((entry) => entry.published), { what: 'the outbox marked published' });
  expect((await request(h.app).get('/health/ready')).body).toMatchObject({ revision: second, outboxBacklog: 0 });
});

test('a snapshot request on the channel answers what the NATS responder would send', async () => {
  const messages = await channel.requestSnapshot({ requester: 'test' });
  const assembler = new SnapshotAssembler();
  const done = messages.map((message) => assembler.add(JSON.parse(new TextDecoder().decode(message))));
  expect(done[done.length - 1]).toBe(true);
  // Parts, as the NATS responder sends them to a pdp.
  expect(JSON.parse(new TextDecoder().decode(messages[0]))).toMatchObject({ format: SNAPSHOT_PARTS_FORMAT, index: 0 });
  const snapshot = assembler.result();
  expect(snapshot).toEqual(await readSnapshot(h.pool));
  expect(snapshot.policies.map((policy) => policy.id)).toEqual(['urn:policy:acme:local-1', 'urn:policy:acme:local-2']);
});
