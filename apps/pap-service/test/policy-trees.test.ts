import request from 'supertest';
import { POLICY_TREE_VERSION } from '@custos/policy-engine';
import { readSnapshot } from '../src/propagation/snapshot';
import { deployedPolicy, outbox, policyXml, startHarness, type Harness } from './harness';

/**
 * pap computes a policy's checked tree when the policy is added or replaced, stores it, and ships it beside the XML.
 * Rows without a tree this engine reads (from before the column, or of another format) get one when a deploy or a
 * snapshot needs it, written back once.
 */
let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});

afterAll(async () => {
  await h.close();
});

const send = (method: 'post' | 'put', path: string, xml?: string) => {
  const call = request(h.app)[method](path).set('Authorization', h.bearer());
  return xml === undefined ? call : call.type('application/xml').send(xml);
};

/** The revision each policy's deployment began at, as its deploy answered it. */
const deployedAt = new Map<string, number>();

const deploy = async (id: string): Promise<void> => {
  const res = await send('post', `/ws/policy/${id}/deploy`);
  expect(res.status).toBe(200);
  deployedAt.set(id, Number(res.headers['policy-revision']));
};

const storedTree = async (id: string): Promise<unknown> =>
  (await h.pool.query<{ tree: unknown }>('SELECT tree FROM pap.policies WHERE id = $1', [id])).rows[0]?.tree;

test('adding and replacing a policy stores the tree of its XML', async () => {
  const id = 'urn:policy:acme:stored';
  expect((await send('post', '/ws/policy', policyXml(id))).status).toBe(201);
  expect(await storedTree(id)).toEqual(deployedPolicy(id, policyXml(id)).tree);
  const replaced = policyXml(id, { name: 'v2' });
  expect((await send('put', `/ws/policy/${id}`, replaced)).status).toBe(200);
  expect(await storedTree(id)).toEqual(deployedPolicy(id, replaced).tree);
  // The tree is pap's: the resource shows the XML as it was sent, and nothing else new.
  const shown = await request(h.app).get(`/ws/policy/${id}`).set('Authorization', h.bearer());
  expect(shown.body.xml).toBe(replaced);
  expect(shown.body).not.toHaveProperty('tree');
});

test('a deploy of a row without a tree computes it, ships it and writes it back', async () => {
  const id = 'urn:policy:acme:old-row';
  expect((await send('post', '/ws/policy', policyXml(id))).status).toBe(201);
  await h.pool.query('UPDATE pap.policies SET tree = NULL WHERE id = $1', [id]);
  await deploy(id);
  expect((await outbox(h.pool)).at(-1)?.message).toMatchObject({ type: 'deploy', policy: deployedPolicy(id, policyXml(id)) });
  expect(await storedTree(id)).toEqual(deployedPolicy(id, policyXml(id)).tree);
});

test('a snapshot ships every policy with its tree, computing the missing and outdated ones once', async () => {
  const missing = 'urn:policy:acme:snap-missing';
  const outdated = 'urn:policy:acme:snap-outdated';
  for (const id of [missing, outdated]) {
    expect((await send('post', '/ws/policy', policyXml(id))).status).toBe(201);
    await deploy(id);
  }
  await h.pool.query('UPDATE pap.policies SET tree = NULL WHERE id = $1', [missing]);
  await h.pool.query(`UPDATE pap.policies SET tree = jsonb_set(tree, '{version}', $2::jsonb) WHERE id = $1`, [outdated, String(POLICY_TREE_VERSION + 1)]);

  const snapshot = await readSnapshot(h.pool);
  const byId = new Map(snapshot.policies.map((policy) => [policy.id, policy]));
  expect(byId.get(missing)).toEqual(deployedPolicy(missing, policyXml(missing), deployedAt.get(missing)));
  expect(byId.get(outdated)).toEqual(deployedPolicy(outdated, policyXml(outdated), deployedAt.get(outdated)));
  // Every deployed policy has one, and it is the tree of its own XML.
  expect(snapshot.policies.map((policy) => policy.id).sort()).toEqual([...deployedAt.keys()].sort());
  for (const policy of snapshot.policies) expect(policy).toEqual(deployedPolicy(policy.id, policy.xml, deployedAt.get(policy.id)));
  expect(await storedTree(missing)).toEqual(deployedPolicy(missing, policyXml(missing)).tree);
  expect(await storedTree(outdated)).toEqual(deployedPolicy(outdated, policyXml(outdated)).tree);
});
