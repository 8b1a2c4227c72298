import request from 'supertest';
import type { Policy } from '@custos/contracts';
import { deployedPolicy, outbox, policyXml, revision } from './harness';
import { usePolicyApi } from './policy-api';

/** Pap's policy routes that change a stored policy: replace, deploy, revoke and remove, and the revisions they take. */
const api = usePolicyApi();
const { add, put, get, post, del, expectUnchanged } = api;

beforeAll(async () => {
  // An undeployed policy beside the ones the tests change.
  expect((await add(policyXml('urn:policy:acme:plain'))).status).toBe(201);
});

describe('replace', () => {
  const id = 'urn:policy:acme:replace-me';

  beforeAll(async () => {
    expect((await add(policyXml(id, { name: 'v1' }))).status).toBe(201);
  });

  test('replaces an undeployed policy without a revision', async () => {
    const before = (await get(`/ws/policy/${id}`)).body as Policy;
    const xml = policyXml(id, { name: 'v2', decision: 'allow' });
    const res = await put(id, xml);
    expect(res.status).toBe(200);
    expect(res.body).toBe(true);
    expect(res.headers['policy-revision']).toBeUndefined();
    const after = (await get(`/ws/policy/${id}`)).body as Policy;
    expect(after.xml).toBe(xml);
    expect(after.name).toBe('v2');
    expect(after.createdAt).toBe(before.createdAt);
    expect(new Date(after.updatedAt).getTime()).toBeGreaterThanOrEqual(new Date(before.updatedAt).getTime());
  });

  test('a different id in the XML is 400', async () => {
    const res = await expectUnchanged(() => put(id, policyXml('urn:policy:acme:other')), 400, 'invalid_policy');
    expect(res.body.errors[0].message).toContain('urn:policy:acme:other');
  });

  test('an unknown policy is 404 and is not created', async () => {
    await expectUnchanged(() => put('urn:policy:acme:unknown', policyXml('urn:policy:acme:unknown')), 404, 'not_found');
  });

  test('invalid XML is 400', async () => {
    await expectUnchanged(() => put(id, '<policy'), 400, 'invalid_policy');
  });

  test('a malformed id is 400 invalid_id', async () => {
    await expectUnchanged(() => put('urn:policy:acme', policyXml(id)), 400, 'invalid_id');
  });

  test('a foreign solution is 403', async () => {
    await expectUnchanged(() => put('urn:policy:globex:x', policyXml('urn:policy:globex:x')), 403, 'insufficient_scope');
  });

  test('wrong content type is 415', async () => {
    await expectUnchanged(
      () => request(api.h.app).put(`/ws/policy/${id}`).set('Authorization', api.h.bearer()).type('json').send('{}'),
      415,
      'unsupported_media_type',
    );
  });

  test('a deployed policy is re-deployed with a new revision', async () => {
    const deployed = await post(`/ws/policy/${id}/deploy`);
    const r = Number(deployed.headers['policy-revision']);
    const xml = policyXml(id, { name: 'v3' });
    const res = await put(id, xml);
    expect(res.status).toBe(200);
    expect(Number(res.headers['policy-revision'])).toBe(r + 1);
    const last = (await outbox(api.h.pool)).at(-1)!;
    expect(last.revision).toBe(r + 1);
    expect(last.message).toEqual({ revision: r + 1, type: 'deploy', policy: deployedPolicy(id, xml, r) });
    expect((await get(`/ws/policy/${id}/status`)).body).toBe(true);
  });
});

describe('deploy, status, revoke, remove', () => {
  const id = 'urn:policy:acme:lifecycle';

  beforeAll(async () => {
    expect((await add(policyXml(id))).status).toBe(201);
  });

  test('deploy answers true with the new revision; again true with the same revision', async () => {
    const r = await revision(api.h.pool);
    const calls = api.changes;
    const first = await post(`/ws/policy/${id}/deploy`);
    expect(first.status).toBe(200);
    expect(first.headers['content-type']).toMatch(/^application\/json/);
    expect(first.body).toBe(true);
    expect(first.headers['policy-revision']).toBe(String(r + 1));
    expect(api.changes).toBe(calls + 1);
    const entry = (await outbox(api.h.pool)).at(-1)!;
    expect(entry.message).toEqual({ revision: r + 1, type: 'deploy', policy: deployedPolicy(id, policyXml(id), r + 1) });

    const again = await post(`/ws/policy/${id}/deploy`);
    expect(again.body).toBe(true);
    expect(again.headers['policy-revision']).toBe(String(r + 1));
    expect(await revision(api.h.pool)).toBe(r + 1);
    expect(api.changes).toBe(calls + 1);
  });

  test('status is true when deployed, false otherwise and for unknown ids', async () => {
    expect((await get(`/ws/policy/${id}/status`)).body).toBe(true);
    expect((await get('/ws/policy/urn:policy:acme:plain/status')).body).toBe(false);
    const unknown = await get('/ws/policy/urn:policy:acme:nothing/status');
    expect(unknown.status).toBe(200);
    expect(unknown.body).toBe(false);
  });

  test('GET shows deployed: true', async () => {
    expect((await get(`/ws/policy/${id}`)).body.deployed).toBe(true);
  });

  test('deploying an unknown policy is false with the current revision', async () => {
    const r = await revision(api.h.pool);
    const res = await post('/ws/policy/urn:policy:acme:nothing/deploy');
    expect(res.status).toBe(200);
    expect(res.body).toBe(false);
    expect(res.headers['policy-revision']).toBe(String(r));
    expect(await revision(api.h.pool)).toBe(r);
  });

  test('revoke (GET) is true once, then false; POST works as well', async () => {
    const r = await revision(api.h.pool);
    const first = await get(`/ws/policy/${id}/revoke`);
    expect(first.body).toBe(true);
    expect(first.headers['policy-revision']).toBe(String(r + 1));
    expect((await outbox(api.h.pool)).at(-1)!.message).toEqual({ revision: r + 1, type: 'revoke', policyId: id });
    const second = await post(`/ws/policy/${id}/revoke`);
    expect(second.body).toBe(false);
    expect(second.headers['policy-revision']).toBe(String(r + 1));
    expect((await get(`/ws/policy/${id}/status`)).body).toBe(false);
    expect((await post(`/ws/policy/${id}/deploy`)).headers['policy-revision']).toBe(String(r + 2));
    const posted = await post(`/ws/policy/${id}/revoke`);
    expect(posted.body).toBe(true);
    expect(posted.headers['policy-revision']).toBe(String(r + 3));
    expect((await get('/ws/policy/urn:policy:acme:nothing/revoke')).body).toBe(false);
  });

  test('removing a deployed policy revokes it in the same revision', async () => {
    const removable = 'urn:policy:acme:removable';
    expect((await add(policyXml(removable))).status).toBe(201);
    await post(`/ws/policy/${removable}/deploy`);
    const r = await revision(api.h.pool);
    const res = await del(`/ws/policy/${removable}`);
    expect(res.body).toBe(true);
    expect(res.headers['policy-revision']).toBe(String(r + 1));
    expect((await outbox(api.h.pool)).at(-1)!.message).toEqual({ revision: r + 1, type: 'revoke', policyId: removable });
    expect((await get(`/ws/policy/${removable}`)).status).toBe(404);
    const again = await del(`/ws/policy/${removable}`);
    expect(again.body).toBe(false);
    expect(again.headers['policy-revision']).toBe(String(r + 1));
  });

  test('removing an undeployed policy keeps the revision', async () => {
    const removable = 'urn:policy:acme:undeployed';
    expect((await add(policyXml(removable))).status).toBe(201);
    const r = await revision(api.h.pool);
    const res = await del(`/ws/policy/${removable}`);
    expect(res.body).toBe(true);
    expect(res.headers['policy-revision']).toBe(String(r));
    expect(await revision(api.h.pool)).toBe(r);
  });

  test('a malformed id in the URL is 400 invalid_id', async () => {
    for (const path of [
      '/ws/policy/not-a-urn/deploy',
      '/ws/policy/urn:policy:Acme:x/status',
      '/ws/policy/urn:action:acme:x/revoke',
      '/ws/policy/urn:policy:acme:x:y',
    ]) {
      const res = path.endsWith('deploy') ? await post(path) : await get(path);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('invalid_id');
    }
    expect((await del('/ws/policy/urn:policy:acme')).body.code).toBe('invalid_id');
  });

  test('an id over 512 characters is refused for its length, not its form', async () => {
    const id = `urn:policy:acme:${'x'.repeat(500)}`;
    const res = await get(`/ws/policy/${id}`);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid_id');
    expect(res.body.detail).toBe(`the policy id in the URL is ${id.length} characters long; it may have at most 512`);
  });
});
