import request from 'supertest';
import { parseWarnings, type Component } from '@custos/contracts';
import { dump } from './harness';
import { pep, pip, pxp, useComponentApi } from './component-api';

const api = useComponentApi();
const { register } = api;

const enc = encodeURIComponent;

describe('register and look up', () => {
  test('a PIP is registered and returned unchanged', async () => {
    const res = await register(pip());
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toBe(true);
    const got = await request(api.h.app).get('/ws/component/urn:component:acme:pip:hr').set('Authorization', api.h.bearer());
    expect(got.status).toBe(200);
    expect(got.body).toEqual(pip());
  });

  test('the id may be percent-encoded in the URL', async () => {
    const got = await request(api.h.app).get(`/ws/component/${enc('urn:component:acme:pip:hr')}`).set('Authorization', api.h.bearer());
    expect(got.status).toBe(200);
    expect(got.body.id.identifier).toBe('urn:component:acme:pip:hr');
  });

  test('registering the same id again replaces it', async () => {
    const changed = pip('urn:component:acme:pip:hr', 'https://hr2.acme.internal/pip');
    expect((await register(changed)).body).toBe(true);
    const got = await request(api.h.app).get('/ws/component/urn:component:acme:pip:hr').set('Authorization', api.h.bearer());
    expect(got.body.urls).toEqual(['https://hr2.acme.internal/pip']);
    const rows = await api.h.pool.query("SELECT count(*)::int AS n FROM pap.components WHERE id = 'urn:component:acme:pip:hr'");
    expect(rows.rows[0].n).toBe(1);
  });

  test('PEP and PXP shapes are accepted', async () => {
    expect((await register(pep())).status).toBe(200);
    expect((await register(pxp())).status).toBe(200);
    const got = await request(api.h.app).get('/ws/component/urn:component:acme:pep:web').set('Authorization', api.h.bearer());
    expect(got.body).toEqual(pep());
  });

  test('an unknown id is 404', async () => {
    const res = await request(api.h.app).get('/ws/component/urn:component:acme:pip:nobody').set('Authorization', api.h.bearer());
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body.code).toBe('not_found');
  });

  test('a malformed id is 400 invalid_id', async () => {
    for (const id of ['urn:component:acme:xyz:a', 'hr', 'urn:component:ACME:pip:a']) {
      const res = await request(api.h.app).get(`/ws/component/${enc(id)}`).set('Authorization', api.h.bearer());
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('invalid_id');
    }
  });
});

describe('URLs the default egress policy refuses', () => {
  // The other describes list what they registered: these are removed again.
  afterAll(async () => {
    for (const id of ['urn:component:acme:pip:internal', 'urn:component:acme:pip:many', 'urn:component:acme:pep:local', 'urn:component:acme:pip:public']) {
      await request(api.h.app).delete(`/ws/component/${id}`).set('Authorization', api.h.bearer());
    }
  });

  test('are registered with a Custos-Warning per URL, located by path; names and PEPs get none', async () => {
    const body = { ...pip('urn:component:acme:pip:internal'), urls: ['https://hr.acme.example/pip', 'http://0x0a.1.2.3:9000/pip', 'http://[::ffff:a9fe:a9fe]/'] };
    const res = await register(body);
    expect(res.status).toBe(200);
    expect(res.body).toBe(true);
    const warnings = parseWarnings(res.headers['custos-warning']);
    expect(warnings.map((warning) => [warning.code, warning.path])).toEqual([
      ['egress_refused_by_default', 'urls[1]'],
      ['egress_refused_by_default', 'urls[2]'],
    ]);
    expect(warnings[0]?.message).toMatch(/`10\.1\.2\.3` is not a public address/);
    expect(warnings[1]?.message).toMatch(/`169\.254\.169\.254` is a link-local or metadata address/);
    const stored = await request(api.h.app).get('/ws/component/urn:component:acme:pip:internal').set('Authorization', api.h.bearer());
    expect(stored.body).toEqual(body);
    const quiet = await register({ ...pep('urn:component:acme:pep:local'), urls: ['http://127.0.0.1:1099/pep'] });
    expect(quiet.status).toBe(200);
    expect(quiet.headers['custos-warning']).toBeUndefined();
    const named = await register(pip('urn:component:acme:pip:public', 'http://localhost.example.com:9000/pip'));
    expect(named.status).toBe(200);
    expect(named.headers['custos-warning']).toBeUndefined();
  });

  test('at most 8 lines, then one saying how many more', async () => {
    const urls = Array.from({ length: 11 }, (_, index) => `http://10.0.0.${index + 1}/pip`);
    const res = await register({ ...pip('urn:component:acme:pip:many'), urls });
    const warnings = parseWarnings(res.headers['custos-warning']);
    expect(warnings.map((warning) => warning.path)).toEqual([...urls.slice(0, 8).map((_, index) => `urls[${index}]`), undefined]);
    expect(warnings[8]?.message).toBe('and 3 more urls the default egress policy refuses');
  });
});

describe('list', () => {
  beforeAll(async () => {
    const admin = api.h.bearer({ solutions: ['*'] });
    expect((await register(pip('urn:component:globex:pip:crm'), admin)).status).toBe(200);
    expect((await register(pip('urn:component:acme:pip:aaa'), admin)).status).toBe(200);
  });

  test('lists the components of the token’s solutions, sorted by id', async () => {
    const res = await request(api.h.app).get('/ws/component').set('Authorization', api.h.bearer());
    expect(res.status).toBe(200);
    expect(res.body.map((c: Component) => c.id.identifier)).toEqual([
      'urn:component:acme:pep:web',
      'urn:component:acme:pip:aaa',
      'urn:component:acme:pip:hr',
      'urn:component:acme:pxp:mail',
    ]);
  });

  test('a token for every solution sees every component', async () => {
    const res = await request(api.h.app).get('/ws/component').set('Authorization', api.h.bearer({ solutions: ['*'] }));
    expect(res.body.map((c: Component) => c.id.identifier)).toContain('urn:component:globex:pip:crm');
  });

  test('filters by type, in any case', async () => {
    const pips = await request(api.h.app).get('/ws/component?type=PIP').set('Authorization', api.h.bearer());
    expect(pips.body.map((c: Component) => c.id.identifier)).toEqual(['urn:component:acme:pip:aaa', 'urn:component:acme:pip:hr']);
    const peps = await request(api.h.app).get('/ws/component?type=pep').set('Authorization', api.h.bearer());
    expect(peps.body.map((c: Component) => c.id.identifier)).toEqual(['urn:component:acme:pep:web']);
    const pxps = await request(api.h.app).get('/ws/component?type=PXP').set('Authorization', api.h.bearer({ solutions: ['globex'] }));
    expect(pxps.body).toEqual([]);
  });

  test('a bad type is 400', async () => {
    for (const query of ['type=FOO', 'type=PIP&type=PEP', 'type=']) {
      const res = await request(api.h.app).get(`/ws/component?${query}`).set('Authorization', api.h.bearer());
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('invalid_request');
      expect(res.body.errors[0].path).toBe('type');
    }
  });
});

describe('unregister', () => {
  test('true when it was registered, then false', async () => {
    expect((await register(pip('urn:component:acme:pip:gone'))).status).toBe(200);
    const first = await request(api.h.app).delete('/ws/component/urn:component:acme:pip:gone').set('Authorization', api.h.bearer());
    expect(first.status).toBe(200);
    expect(first.body).toBe(true);
    const second = await request(api.h.app).delete('/ws/component/urn:component:acme:pip:gone').set('Authorization', api.h.bearer());
    expect(second.body).toBe(false);
    const got = await request(api.h.app).get('/ws/component/urn:component:acme:pip:gone').set('Authorization', api.h.bearer());
    expect(got.status).toBe(404);
  });
});

describe('solutions', () => {
  beforeAll(async () => {
    expect((await register(pip('urn:component:globex:pip:secret'), api.h.bearer({ solutions: ['*'] }))).status).toBe(200);
  });

  test('registering a component of a foreign solution is 403 and stores nothing', async () => {
    const before = await dump(api.h.pool);
    const body = pip('urn:component:globex:pip:new');
    const res = await register(body);
    expect(res.status).toBe(403);
    expect(res.headers['www-authenticate']).toMatch(/error="insufficient_scope"/);
    expect(await dump(api.h.pool)).toEqual(before);
  });

  test('a foreign component is 403 whether or not it exists', async () => {
    for (const id of ['urn:component:globex:pip:secret', 'urn:component:globex:pip:nothing']) {
      const get = await request(api.h.app).get(`/ws/component/${id}`).set('Authorization', api.h.bearer());
      expect(get.status).toBe(403);
      expect(get.body.code).toBe('insufficient_scope');
      const del = await request(api.h.app).delete(`/ws/component/${id}`).set('Authorization', api.h.bearer());
      expect(del.status).toBe(403);
    }
    const still = await request(api.h.app)
      .get('/ws/component/urn:component:globex:pip:secret')
      .set('Authorization', api.h.bearer({ solutions: ['globex'] }));
    expect(still.status).toBe(200);
  });
});
