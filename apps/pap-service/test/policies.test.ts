import request from 'supertest';
import type { Policy } from '@custos/contracts';
import { dump, policyXml, revision } from './harness';
import { usePolicyApi } from './policy-api';

/** Pap's policy routes: adding and showing a policy, what is refused, the lists, and other solutions' policies. */
const api = usePolicyApi();
const { add, get, post, expectUnchanged } = api;

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
    expect(await revision(api.h.pool)).toBe(0);
  });

  test('text/xml is accepted too', async () => {
    const res = await add(policyXml('urn:policy:acme:text-xml'), api.h.bearer(), 'text/xml; charset=utf-8');
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
    await expectUnchanged(() => add(policyXml('urn:policy:acme:json'), api.h.bearer(), 'application/json'), 415, 'unsupported_media_type');
    await expectUnchanged(
      () => request(api.h.app).post('/ws/policy').set('Authorization', api.h.bearer()).send(Buffer.from(policyXml('urn:policy:acme:none'))),
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

describe('lists', () => {
  beforeAll(async () => {
    const admin = api.h.bearer({ solutions: ['*'] });
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
    const all = await get('/ws/policy-ids/deployed', api.h.bearer({ solutions: ['*'] }));
    expect(ids(all.body)).toContain('urn:policy:globex:g1');
  });

  test('policy/deployed: Policy objects of deployed policies, filtered', async () => {
    const res = await get('/ws/policy/deployed');
    expect(res.status).toBe(200);
    const policies = res.body as Policy[];
    expect(policies.every((p) => p.deployed && p.id.identifier.startsWith('urn:policy:acme:'))).toBe(true);
    expect(policies.map((p) => p.id.identifier)).toEqual(ids((await get('/ws/policy-ids/deployed')).body));
    expect(policies.find((p) => p.id.identifier === 'urn:policy:acme:aa')!.xml).toBe(policyXml('urn:policy:acme:aa'));
    const globex = await get('/ws/policy/deployed', api.h.bearer({ solutions: ['globex'] }));
    expect(globex.body.map((p: Policy) => p.id.identifier)).toEqual(['urn:policy:globex:g1']);
    const none = await get('/ws/policy/deployed', api.h.bearer({ solutions: ['initech'] }));
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
    expect((await add(policyXml('urn:policy:globex:secret'), api.h.bearer({ solutions: ['globex'] }))).status).toBe(201);
    expect((await post('/ws/policy/urn:policy:globex:secret/deploy', api.h.bearer({ solutions: ['globex'] }))).body).toBe(true);
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
      const before = await dump(api.h.pool);
      const path = `/ws/policy/${id}${suffix}`;
      let call = request(api.h.app)[method.toLowerCase() as 'get' | 'put' | 'delete' | 'post'](path).set('Authorization', api.h.bearer());
      if (method === 'PUT') call = call.set('Content-Type', 'application/xml').send(policyXml(id));
      const res = await call;
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('insufficient_scope');
      expect(res.body.detail).toBe('the token does not grant access to this solution');
      expect(res.headers['policy-revision']).toBeUndefined();
      expect(await dump(api.h.pool)).toEqual(before);
    }
  });
});
