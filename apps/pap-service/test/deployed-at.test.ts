import request from 'supertest';
import { readSnapshot } from '../src/propagation/snapshot';
import { deployedPolicy, outbox, policyXml, startHarness, type Harness } from './harness';

/**
 * pap remembers, per policy, the revision at which its current deployment began (`deployedAt`): set by the
 * not deployed → deployed change, kept by a replace while deployed, cleared by a revoke, and shipped in deploy
 * changes and snapshots so pdps can tell a new deployment from the same one.
 */
let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});

afterAll(async () => {
  await h.close();
});

const call = (method: 'post' | 'put', path: string, xml?: string) => {
  const req = request(h.app)[method](path).set('Authorization', h.bearer());
  return xml === undefined ? req : req.type('application/xml').send(xml);
};

const revisionOf = (res: { headers: Record<string, string> }): number => Number(res.headers['policy-revision']);

const storedDeployedAt = async (id: string): Promise<string | null | undefined> =>
  (await h.pool.query<{ deployed_at: string | null }>('SELECT deployed_at FROM pap.policies WHERE id = $1', [id])).rows[0]?.deployed_at;

const lastChange = async (): Promise<unknown> => (await outbox(h.pool)).at(-1)?.message;

const snapshotEntry = async (id: string) => (await readSnapshot(h.pool)).policies.find((policy) => policy.id === id);

test('a deploy begins a deployment at its own revision; a replace keeps it; revoke and deploy begin a new one', async () => {
  const id = 'urn:policy:acme:deployments';
  expect((await call('post', '/ws/policy', policyXml(id))).status).toBe(201);
  expect(await storedDeployedAt(id)).toBeNull();

  const first = await call('post', `/ws/policy/${id}/deploy`);
  expect(first.status).toBe(200);
  const begun = revisionOf(first);
  expect(await storedDeployedAt(id)).toBe(String(begun));
  expect(await lastChange()).toEqual({ revision: begun, type: 'deploy', policy: deployedPolicy(id, policyXml(id), begun) });
  expect(await snapshotEntry(id)).toEqual(deployedPolicy(id, policyXml(id), begun));

  // Deploying what is deployed changes nothing.
  expect(revisionOf(await call('post', `/ws/policy/${id}/deploy`))).toBe(begun);
  expect(await storedDeployedAt(id)).toBe(String(begun));

  const v2 = policyXml(id, { name: 'v2' });
  const replaced = await call('put', `/ws/policy/${id}`, v2);
  expect(replaced.status).toBe(200);
  expect(revisionOf(replaced)).toBe(begun + 1);
  expect(await lastChange()).toEqual({ revision: begun + 1, type: 'deploy', policy: deployedPolicy(id, v2, begun) });
  expect(await storedDeployedAt(id)).toBe(String(begun));
  expect(await snapshotEntry(id)).toEqual(deployedPolicy(id, v2, begun));

  const revoked = await call('post', `/ws/policy/${id}/revoke`);
  expect(revoked.body).toBe(true);
  expect(await storedDeployedAt(id)).toBeNull();
  expect(await snapshotEntry(id)).toBeUndefined();

  const again = await call('post', `/ws/policy/${id}/deploy`);
  const rebegun = revisionOf(again);
  expect(rebegun).toBe(revisionOf(revoked) + 1);
  expect(await storedDeployedAt(id)).toBe(String(rebegun));
  expect(await lastChange()).toEqual({ revision: rebegun, type: 'deploy', policy: deployedPolicy(id, v2, rebegun) });
  expect(await snapshotEntry(id)).toEqual(deployedPolicy(id, v2, rebegun));
});

test('a replace of an undeployed policy sets nothing', async () => {
  const id = 'urn:policy:acme:undeployed';
  expect((await call('post', '/ws/policy', policyXml(id))).status).toBe(201);
  expect((await call('put', `/ws/policy/${id}`, policyXml(id, { name: 'v2' }))).status).toBe(200);
  expect(await storedDeployedAt(id)).toBeNull();
});

test('a policy deployed before the column existed ships no `deployedAt` until it is deployed anew', async () => {
  const id = 'urn:policy:acme:older';
  expect((await call('post', '/ws/policy', policyXml(id))).status).toBe(201);
  expect((await call('post', `/ws/policy/${id}/deploy`)).status).toBe(200);
  // As the migration leaves a row that was deployed before it.
  await h.pool.query('UPDATE pap.policies SET deployed_at = NULL WHERE id = $1', [id]);
  expect(await snapshotEntry(id)).toEqual(deployedPolicy(id, policyXml(id)));

  const v2 = policyXml(id, { name: 'v2' });
  const replaced = await call('put', `/ws/policy/${id}`, v2);
  expect(await lastChange()).toEqual({ revision: revisionOf(replaced), type: 'deploy', policy: deployedPolicy(id, v2) });

  expect((await call('post', `/ws/policy/${id}/revoke`)).body).toBe(true);
  const redeployed = revisionOf(await call('post', `/ws/policy/${id}/deploy`));
  expect(await snapshotEntry(id)).toEqual(deployedPolicy(id, v2, redeployed));
});
