import request from 'supertest';
import type { Policy } from '@custos/contracts';
import { deployedPolicy, dump, outbox, policyXml, revision, startHarness, type Harness } from './harness';

let h: Harness;
let changes = 0;
beforeAll(async () => {
  h = await startHarness({ onChange: () => void changes++ });
});
afterAll(async () => {
  await h.close();
});

const add = (xml: string, auth = h.bearer(), type = 'application/xml') =>
  request(h.app).post('/ws/policy').set('Authorization', auth).set('Content-Type', type).send(xml);
const put = (id: string, xml: string, auth = h.bearer()) =>
  request(h.app).put(`/ws/policy/${id}`).set('Authorization', auth).set('Content-Type', 'application/xml').send(xml);
const get = (path: string, auth = h.bearer()) => request(h.app).get(path).set('Authorization', auth);
const post = (path: string, auth = h.bearer()) => request(h.app).post(path).set('Authorization', auth);
const del = (path: string, auth = h.bearer()) => request(h.app).delete(path).set('Authorization', auth);

const expectUnchanged = async (send: () => Promise<request.Response>, status: number, code: string) => {
  const before = await dump(h.pool);
  const res = await send();
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(res.body.code).toBe(code);
  expect(await dump(h.pool)).toEqual(before);
  return res;
};

describe('add and show', () => {
  const id = 'urn:policy:acme:mask-names';
  const xml = policyXml(id, { name: 'Mask names', description: 'masks the names' });

  test('201 true with Location, stored undeployed', async () => {
    const res = await add(xml);
    expect(res.status).toBe(201);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toBe(true);
    expect(res.headers.location).toBe(`/ws/policy/${id}`);
    expect(res.headers['policy-revision']).toBeUndefined();
    expect(await revision(h.pool)).toBe(0);
  });

  test('text/xml is accepted too', async () => {
    const res = await add(policyXml('urn:policy:acme:text-xml'), h.bearer(), 'text/xml; charset=utf-8');
    expect(res.status).toBe(201);
  });

  test('shows the Policy as JSON', async () => {
    const res = await get(`/ws/policy/${id}`);
    expect(res.status).toBe(200);
    const policy = res.body as Policy;
    expect(policy).toEqual({
      id: { identifier: id },
      name: 'Mask names',
      description: 'masks the names',
      deployed: false,
      xml,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect(new Date(policy.createdAt).toISOString()).toBe(policy.createdAt);
  });

  test('shows the stored XML with Accept: application/xml or text/xml', async () => {
    const res = await get(`/ws/policy/${id}`).set('Accept', 'application/xml');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/xml/);
    expect(res.text).toBe(xml);
    const text = await get(`/ws/policy/${id}`).set('Accept', 'text/xml');
    expect(text.headers['content-type']).toMatch(/^text\/xml/);
    expect(text.text).toBe(xml);
  });

  test('406 for a representation it cannot give', async () => {
    const res = await get(`/ws/policy/${id}`).set('Accept', 'text/html');
    expect(res.status).toBe(406);
    expect(res.body.code).toBe('not_acceptable');
  });

  test('404 for an unknown policy', async () => {
    const res = await get('/ws/policy/urn:policy:acme:nothing');
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('not_found');
  });

  test('a name-less policy has null name and description', async () => {
    expect((await add(policyXml('urn:policy:acme:plain'))).status).toBe(201);
    const res = await get('/ws/policy/urn:policy:acme:plain');
    expect(res.body.name).toBeNull();
    expect(res.body.description).toBeNull();
  });

  test('adding an existing id is 409 and keeps the stored text', async () => {
    await expectUnchanged(() => add(policyXml(id, { name: 'Other' })), 409, 'conflict');
  });
});

describe('bad policies are rejected and change nothing', () => {
  test('malformed XML: 400 invalid_policy with line and column', async () => {
    const xml = '<policy xmlns="http://www.mydata-control.de/4.0/mydataLanguage" id="urn:policy:acme:broken">\n  <mechanism>\n</policy>';
    const res = await expectUnchanged(() => add(xml), 400, 'invalid_policy');
    expect(res.body.errors.length).toBeGreaterThan(0);
    expect(res.body.errors[0]).toEqual(expect.objectContaining({ message: expect.any(String), line: expect.any(Number), column: expect.any(Number) }));
    expect(res.body.errors[0].line).toBeGreaterThanOrEqual(2);
  });

  test('a DOCTYPE is rejected', async () => {
    const xml = `<?xml version="1.0"?>\n<!DOCTYPE policy [<!ENTITY a "aaaa">]>\n${policyXml('urn:policy:acme:doctype').replace(/^<\?xml[^>]*>\n/, '')}`;
    const res = await expectUnchanged(() => add(xml), 400, 'invalid_policy');
    expect(JSON.stringify(res.body.errors).toLowerCase()).toContain('doctype');
  });

  test('an empty body', async () => {
    await expectUnchanged(() => add(''), 400, 'invalid_policy');
  });

  test('the solution rule: an action of another solution', async () => {
    const xml = policyXml('urn:policy:acme:cross', { action: 'urn:action:globex:show' });
    const res = await expectUnchanged(() => add(xml), 400, 'invalid_policy');
    expect(res.body.errors[0].line).toEqual(expect.any(Number));
  });

  test('wrong content type is 415', async () => {
    await expectUnchanged(() => add(policyXml('urn:policy:acme:json'), h.bearer(), 'application/json'), 415, 'unsupported_media_type');
    await expectUnchanged(
      () => request(h.app).post('/ws/policy').set('Authorization', h.bearer()).send(Buffer.from(policyXml('urn:policy:acme:none'))),
      415,
      'unsupported_media_type',
    );
  });

  test('a body over 5 MiB is 413', async () => {
    const xml = policyXml('urn:policy:acme:huge').replace('</policy>', `<!-- ${'x'.repeat(5 * 1024 * 1024)} --></policy>`);
    await expectUnchanged(() => add(xml), 413, 'payload_too_large');
  });

  test('a policy of a foreign solution is 403', async () => {
    const res = await expectUnchanged(() => add(policyXml('urn:policy:globex:p')), 403, 'insufficient_scope');
    expect(res.headers['www-authenticate']).toMatch(/error="insufficient_scope"/);
  });
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
      () => request(h.app).put(`/ws/policy/${id}`).set('Authorization', h.bearer()).type('json').send('{}'),
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
    const last = (await outbox(h.pool)).at(-1)!;
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
    const r = await revision(h.pool);
    const calls = changes;
    const first = await post(`/ws/policy/${id}/deploy`);
    expect(first.status).toBe(200);
    expect(first.headers['content-type']).toMatch(/^application\/json/);
    expect(first.body).toBe(true);
    expect(first.headers['policy-revision']).toBe(String(r + 1));
    expect(changes).toBe(calls + 1);
    const entry = (await outbox(h.pool)).at(-1)!;
    expect(entry.message).toEqual({ revision: r + 1, type: 'deploy', policy: deployedPolicy(id, policyXml(id), r + 1) });

    const again = await post(`/ws/policy/${id}/deploy`);
    expect(again.body).toBe(true);
    expect(again.headers['policy-revision']).toBe(String(r + 1));
    expect(await revision(h.pool)).toBe(r + 1);
    expect(changes).toBe(calls + 1);
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
    const r = await revision(h.pool);
    const res = await post('/ws/policy/urn:policy:acme:nothing/deploy');
    expect(res.status).toBe(200);
    expect(res.body).toBe(false);
    expect(res.headers['policy-revision']).toBe(String(r));
    expect(await revision(h.pool)).toBe(r);
  });

  test('revoke (GET) is true once, then false; POST works as well', async () => {
    const r = await revision(h.pool);
    const first = await get(`/ws/policy/${id}/revoke`);
    expect(first.body).toBe(true);
    expect(first.headers['policy-revision']).toBe(String(r + 1));
    expect((await outbox(h.pool)).at(-1)!.message).toEqual({ revision: r + 1, type: 'revoke', policyId: id });
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
    const r = await revision(h.pool);
    const res = await del(`/ws/policy/${removable}`);
    expect(res.body).toBe(true);
    expect(res.headers['policy-revision']).toBe(String(r + 1));
    expect((await outbox(h.pool)).at(-1)!.message).toEqual({ revision: r + 1, type: 'revoke', policyId: removable });
    expect((await get(`/ws/policy/${removable}`)).status).toBe(404);
    const again = await del(`/ws/policy/${removable}`);
    expect(again.body).toBe(false);
    expect(again.headers['policy-revision']).toBe(String(r + 1));
  });

  test('removing an undeployed policy keeps the revision', async () => {
    const removable = 'urn:policy:acme:undeployed';
    expect((await add(policyXml(removable))).status).toBe(201);
    const r = await revision(h.pool);
    const res = await del(`/ws/policy/${removable}`);
    expect(res.body).toBe(true);
    expect(res.headers['policy-revision']).toBe(String(r));
    expect(await revision(h.pool)).toBe(r);
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

describe('lists', () => {
  beforeAll(async () => {
    const admin = h.bearer({ solutions: ['*'] });
    for (const id of ['urn:policy:acme:zz', 'urn:policy:acme:Ab', 'urn:policy:acme:aa', 'urn:policy:globex:g1']) {
      expect((await add(policyXml(id), admin)).status).toBe(201);
    }
    for (const id of ['urn:policy:acme:zz', 'urn:policy:acme:aa', 'urn:policy:globex:g1']) {
      expect((await post(`/ws/policy/${id}/deploy`, admin)).body).toBe(true);
    }
  });

  const ids = (body: Array<{ identifier: string }>) => body.map((p) => p.identifier);

  test('policy-ids: every policy of the token’s solutions, sorted', async () => {
    const res = await get('/ws/policy-ids');
    expect(res.status).toBe(200);
    const list = ids(res.body);
    expect(list).toEqual([...list].sort());
    expect(list).toEqual(expect.arrayContaining(['urn:policy:acme:Ab', 'urn:policy:acme:aa', 'urn:policy:acme:zz', 'urn:policy:acme:plain']));
    expect(list.every((id) => id.startsWith('urn:policy:acme:'))).toBe(true);
    expect(res.body[0]).toEqual({ identifier: list[0] });
  });

  test('policy-ids/deployed: only deployed ones, sorted', async () => {
    const res = await get('/ws/policy-ids/deployed');
    const list = ids(res.body);
    expect(list).toEqual([...list].sort());
    expect(list).toContain('urn:policy:acme:aa');
    expect(list).toContain('urn:policy:acme:zz');
    expect(list).not.toContain('urn:policy:acme:Ab');
    expect(list).not.toContain('urn:policy:globex:g1');
    const all = await get('/ws/policy-ids/deployed', h.bearer({ solutions: ['*'] }));
    expect(ids(all.body)).toContain('urn:policy:globex:g1');
  });

  test('policy/deployed: Policy objects of deployed policies, filtered', async () => {
    const res = await get('/ws/policy/deployed');
    expect(res.status).toBe(200);
    const policies = res.body as Policy[];
    expect(policies.every((p) => p.deployed && p.id.identifier.startsWith('urn:policy:acme:'))).toBe(true);
    expect(policies.map((p) => p.id.identifier)).toEqual(ids((await get('/ws/policy-ids/deployed')).body));
    expect(policies.find((p) => p.id.identifier === 'urn:policy:acme:aa')!.xml).toBe(policyXml('urn:policy:acme:aa'));
    const globex = await get('/ws/policy/deployed', h.bearer({ solutions: ['globex'] }));
    expect(globex.body.map((p: Policy) => p.id.identifier)).toEqual(['urn:policy:globex:g1']);
    const none = await get('/ws/policy/deployed', h.bearer({ solutions: ['initech'] }));
    expect(none.body).toEqual([]);
  });

  test('/ws/policy/deployed answers only GET', async () => {
    const res = await post('/ws/policy/deployed');
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('GET, HEAD');
  });
});

describe('foreign solutions', () => {
  beforeAll(async () => {
    expect((await add(policyXml('urn:policy:globex:secret'), h.bearer({ solutions: ['globex'] }))).status).toBe(201);
    expect((await post('/ws/policy/urn:policy:globex:secret/deploy', h.bearer({ solutions: ['globex'] }))).body).toBe(true);
  });

  test.each([
    ['GET', ''],
    ['PUT', ''],
    ['DELETE', ''],
    ['POST', '/deploy'],
    ['GET', '/revoke'],
    ['POST', '/revoke'],
    ['GET', '/status'],
  ])('%s /ws/policy/{foreign}%s is 403 whether or not it exists, and changes nothing', async (method, suffix) => {
    for (const id of ['urn:policy:globex:secret', 'urn:policy:globex:nothing']) {
      const before = await dump(h.pool);
      const path = `/ws/policy/${id}${suffix}`;
      let call = request(h.app)[method.toLowerCase() as 'get' | 'put' | 'delete' | 'post'](path).set('Authorization', h.bearer());
      if (method === 'PUT') call = call.set('Content-Type', 'application/xml').send(policyXml(id));
      const res = await call;
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('insufficient_scope');
      expect(res.body.detail).toBe('the token does not grant access to this solution');
      expect(res.headers['policy-revision']).toBeUndefined();
      expect(await dump(h.pool)).toEqual(before);
    }
  });
});
