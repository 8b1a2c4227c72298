import request from 'supertest';
import { parseWarnings, type Component } from '@custos/contracts';
import { dump, startHarness, type Harness } from './harness';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

const pip = (identifier = 'urn:component:acme:pip:hr', url = 'http://hr.acme.internal:9000/pip'): Component => ({
  id: { componentType: 'PIP', identifier },
  urls: [url],
  componentInterfaces: [
    {
      type: 'InterfaceDescription',
      methodName: `urn:info:${identifier.split(':')[2]}:getRole`,
      returnType: 'java.lang.String',
      description: 'role of a user',
      parameters: [{ name: 'userId', description: '', type: 'java.lang.String', mandatory: true }],
    },
  ],
});

const pep = (identifier = 'urn:component:acme:pep:web'): Component => ({
  id: { componentType: 'PEP', identifier },
  urls: ['rmi://web.acme.internal:1099/pep'],
  componentInterfaces: [
    {
      type: 'PepInterfaceDescription',
      event: { platform: 'web', context: 'hr', action: 'urn:action:acme:show-employee' },
      preventive: true,
      methodName: 'showEmployee',
      returnType: 'void',
      description: 'shows an employee',
      parameters: [{ name: 'user', description: 'the user', type: 'com.acme.User' }],
    },
  ],
});

const pxp = (identifier = 'urn:component:acme:pxp:mail'): Component => ({
  id: { componentType: 'PXP', identifier },
  urls: ['https://mail.acme.internal/pxp'],
  componentInterfaces: [
    {
      type: 'InterfaceDescription',
      methodName: 'urn:action:acme:send-mail',
      returnType: 'java.lang.Boolean',
      parameters: [{ name: 'to', type: 'java.lang.String' }],
    },
  ],
});

const register = (body: unknown, auth = h.bearer()) =>
  request(h.app).post('/ws/component').set('Authorization', auth).send(body as object);

const enc = encodeURIComponent;

describe('register and look up', () => {
  test('a PIP is registered and returned unchanged', async () => {
    const res = await register(pip());
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toBe(true);
    const got = await request(h.app).get('/ws/component/urn:component:acme:pip:hr').set('Authorization', h.bearer());
    expect(got.status).toBe(200);
    expect(got.body).toEqual(pip());
  });

  test('the id may be percent-encoded in the URL', async () => {
    const got = await request(h.app).get(`/ws/component/${enc('urn:component:acme:pip:hr')}`).set('Authorization', h.bearer());
    expect(got.status).toBe(200);
    expect(got.body.id.identifier).toBe('urn:component:acme:pip:hr');
  });

  test('registering the same id again replaces it', async () => {
    const changed = pip('urn:component:acme:pip:hr', 'https://hr2.acme.internal/pip');
    expect((await register(changed)).body).toBe(true);
    const got = await request(h.app).get('/ws/component/urn:component:acme:pip:hr').set('Authorization', h.bearer());
    expect(got.body.urls).toEqual(['https://hr2.acme.internal/pip']);
    const rows = await h.pool.query("SELECT count(*)::int AS n FROM pap.components WHERE id = 'urn:component:acme:pip:hr'");
    expect(rows.rows[0].n).toBe(1);
  });

  test('PEP and PXP shapes are accepted', async () => {
    expect((await register(pep())).status).toBe(200);
    expect((await register(pxp())).status).toBe(200);
    const got = await request(h.app).get('/ws/component/urn:component:acme:pep:web').set('Authorization', h.bearer());
    expect(got.body).toEqual(pep());
  });

  test('an unknown id is 404', async () => {
    const res = await request(h.app).get('/ws/component/urn:component:acme:pip:nobody').set('Authorization', h.bearer());
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body.code).toBe('not_found');
  });

  test('a malformed id is 400 invalid_id', async () => {
    for (const id of ['urn:component:acme:xyz:a', 'hr', 'urn:component:ACME:pip:a']) {
      const res = await request(h.app).get(`/ws/component/${enc(id)}`).set('Authorization', h.bearer());
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('invalid_id');
    }
  });
});

describe('URLs the default egress policy refuses', () => {
  // The other describes list what they registered: these are removed again.
  afterAll(async () => {
    for (const id of ['urn:component:acme:pip:internal', 'urn:component:acme:pip:many', 'urn:component:acme:pep:local', 'urn:component:acme:pip:public']) {
      await request(h.app).delete(`/ws/component/${id}`).set('Authorization', h.bearer());
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
    const stored = await request(h.app).get('/ws/component/urn:component:acme:pip:internal').set('Authorization', h.bearer());
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
    const admin = h.bearer({ solutions: ['*'] });
    expect((await register(pip('urn:component:globex:pip:crm'), admin)).status).toBe(200);
    expect((await register(pip('urn:component:acme:pip:aaa'), admin)).status).toBe(200);
  });

  test('lists the components of the token’s solutions, sorted by id', async () => {
    const res = await request(h.app).get('/ws/component').set('Authorization', h.bearer());
    expect(res.status).toBe(200);
    expect(res.body.map((c: Component) => c.id.identifier)).toEqual([
      'urn:component:acme:pep:web',
      'urn:component:acme:pip:aaa',
      'urn:component:acme:pip:hr',
      'urn:component:acme:pxp:mail',
    ]);
  });

  test('a token for every solution sees every component', async () => {
    const res = await request(h.app).get('/ws/component').set('Authorization', h.bearer({ solutions: ['*'] }));
    expect(res.body.map((c: Component) => c.id.identifier)).toContain('urn:component:globex:pip:crm');
  });

  test('filters by type, in any case', async () => {
    const pips = await request(h.app).get('/ws/component?type=PIP').set('Authorization', h.bearer());
    expect(pips.body.map((c: Component) => c.id.identifier)).toEqual(['urn:component:acme:pip:aaa', 'urn:component:acme:pip:hr']);
    const peps = await request(h.app).get('/ws/component?type=pep').set('Authorization', h.bearer());
    expect(peps.body.map((c: Component) => c.id.identifier)).toEqual(['urn:component:acme:pep:web']);
    const pxps = await request(h.app).get('/ws/component?type=PXP').set('Authorization', h.bearer({ solutions: ['globex'] }));
    expect(pxps.body).toEqual([]);
  });

  test('a bad type is 400', async () => {
    for (const query of ['type=FOO', 'type=PIP&type=PEP', 'type=']) {
      const res = await request(h.app).get(`/ws/component?${query}`).set('Authorization', h.bearer());
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('invalid_request');
      expect(res.body.errors[0].path).toBe('type');
    }
  });
});

describe('unregister', () => {
  test('true when it was registered, then false', async () => {
    expect((await register(pip('urn:component:acme:pip:gone'))).status).toBe(200);
    const first = await request(h.app).delete('/ws/component/urn:component:acme:pip:gone').set('Authorization', h.bearer());
    expect(first.status).toBe(200);
    expect(first.body).toBe(true);
    const second = await request(h.app).delete('/ws/component/urn:component:acme:pip:gone').set('Authorization', h.bearer());
    expect(second.body).toBe(false);
    const got = await request(h.app).get('/ws/component/urn:component:acme:pip:gone').set('Authorization', h.bearer());
    expect(got.status).toBe(404);
  });
});

describe('bad input changes nothing', () => {
  const expectRejected = async (
    send: () => Promise<request.Response>,
    status: number,
    code: string,
    paths: string[] = [],
  ): Promise<request.Response> => {
    const before = await dump(h.pool);
    const res = await send();
    expect(res.status).toBe(status);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body.code).toBe(code);
    const got = (res.body.errors ?? []).map((e: { path: string }) => e.path);
    for (const path of paths) expect(got).toContain(path);
    expect(await dump(h.pool)).toEqual(before);
    return res;
  };

  test('malformed JSON', async () => {
    const res = await expectRejected(
      () => request(h.app).post('/ws/component').set('Authorization', h.bearer()).type('json').send('{\n  "id": 1,\n}'),
      400,
      'malformed_json',
    );
    expect(res.body.errors[0]).toEqual(expect.objectContaining({ line: 3, column: 1 }));
  });

  test('wrong content type', async () => {
    await expectRejected(
      () => request(h.app).post('/ws/component').set('Authorization', h.bearer()).type('text/plain').send(JSON.stringify(pip())),
      415,
      'unsupported_media_type',
    );
  });

  test('oversized body', async () => {
    const huge = { ...pip(), padding: 'x'.repeat(1024 * 1024 + 1) };
    await expectRejected(() => register(huge), 413, 'payload_too_large');
  });

  test('missing fields, with paths', async () => {
    const res = await expectRejected(() => register({ id: { componentType: 'PIP' } }), 400, 'invalid_component', [
      'id.identifier',
      'urls',
      'componentInterfaces',
    ]);
    expect(res.body.errors.find((e: { path: string }) => e.path === 'urls').message).toBe('is required');
  });

  test('not an object', async () => {
    await expectRejected(() => register([1, 2]), 400, 'invalid_component', ['(body)']);
  });

  test('unknown fields and wrong types', async () => {
    const body = { ...pip(), extra: 1, urls: 'http://x' };
    const res = await expectRejected(() => register(body), 400, 'invalid_component', ['extra', 'urls']);
    expect(res.body.errors.find((e: { path: string }) => e.path === 'extra').message).toBe('is not a known field');
  });

  test('componentType must equal the identifier’s type segment', async () => {
    const body = { ...pip(), id: { componentType: 'PXP', identifier: 'urn:component:acme:pip:hr' } };
    await expectRejected(() => register(body), 400, 'invalid_component', ['id.componentType']);
  });

  test('a malformed identifier', async () => {
    const body = { ...pip(), id: { componentType: 'PIP', identifier: 'urn:component:acme:hr' } };
    await expectRejected(() => register(body), 400, 'invalid_component', ['id.identifier']);
  });

  test('an unknown componentType', async () => {
    const body = { ...pip(), id: { componentType: 'XYZ', identifier: 'urn:component:acme:pip:hr' } };
    await expectRejected(() => register(body), 400, 'invalid_component', ['id.componentType']);
  });

  test('URL schemes other than http, https, rmi', async () => {
    const body = { ...pip(), urls: ['http://ok.example', 'ftp://files.example/x', 'not a url'] };
    const res = await expectRejected(() => register(body), 400, 'invalid_component', ['urls[1]', 'urls[2]']);
    expect(res.body.errors.map((e: { path: string }) => e.path)).not.toContain('urls[0]');
  });

  test('user information in a PIP or PXP URL, which no pdp ever calls; not echoed', async () => {
    const body = { ...pxp(), urls: ['https://mail.acme.example/pxp', 'https://bot:hunter2@mail.acme.example/pxp'] };
    const res = await expectRejected(() => register(body), 400, 'invalid_component', ['urls[1]']);
    expect(JSON.stringify(res.body)).not.toContain('hunter2');
  });

  test('no URL at all', async () => {
    await expectRejected(() => register({ ...pip(), urls: [] }), 400, 'invalid_component', ['urls']);
  });

  test('a PEP interface on a PIP', async () => {
    const body = { ...pip(), componentInterfaces: pep().componentInterfaces };
    await expectRejected(() => register(body), 400, 'invalid_component', [
      'componentInterfaces[0].type',
      'componentInterfaces[0].event',
      'componentInterfaces[0].preventive',
    ]);
  });

  test('a PEP interface without event and with a PIP parameter field', async () => {
    const iface = { ...pep().componentInterfaces[0]!, event: undefined } as Record<string, unknown>;
    delete iface.event;
    iface.parameters = [{ name: 'u', type: 'x', mandatory: true }];
    await expectRejected(() => register({ ...pep(), componentInterfaces: [iface] }), 400, 'invalid_component', [
      'componentInterfaces[0].event',
      'componentInterfaces[0].parameters[0].mandatory',
    ]);
  });

  test('PIP and PXP methods must belong to the component’s solution', async () => {
    const foreignPip = pip();
    foreignPip.componentInterfaces[0]!.methodName = 'urn:info:globex:getRole';
    await expectRejected(() => register(foreignPip), 400, 'invalid_component', ['componentInterfaces[0].methodName']);
    const badPxp = pxp();
    badPxp.componentInterfaces[0]!.methodName = 'send-mail';
    await expectRejected(() => register(badPxp), 400, 'invalid_component', ['componentInterfaces[0].methodName']);
  });

  test('a bare PIP method name is fine', async () => {
    const bare = pip('urn:component:acme:pip:bare');
    bare.componentInterfaces[0]!.methodName = 'getRole';
    expect((await register(bare)).status).toBe(200);
  });
});

describe('solutions', () => {
  beforeAll(async () => {
    expect((await register(pip('urn:component:globex:pip:secret'), h.bearer({ solutions: ['*'] }))).status).toBe(200);
  });

  test('registering a component of a foreign solution is 403 and stores nothing', async () => {
    const before = await dump(h.pool);
    const body = pip('urn:component:globex:pip:new');
    const res = await register(body);
    expect(res.status).toBe(403);
    expect(res.headers['www-authenticate']).toMatch(/error="insufficient_scope"/);
    expect(await dump(h.pool)).toEqual(before);
  });

  test('a foreign component is 403 whether or not it exists', async () => {
    for (const id of ['urn:component:globex:pip:secret', 'urn:component:globex:pip:nothing']) {
      const get = await request(h.app).get(`/ws/component/${id}`).set('Authorization', h.bearer());
      expect(get.status).toBe(403);
      expect(get.body.code).toBe('insufficient_scope');
      const del = await request(h.app).delete(`/ws/component/${id}`).set('Authorization', h.bearer());
      expect(del.status).toBe(403);
    }
    const still = await request(h.app)
      .get('/ws/component/urn:component:globex:pip:secret')
      .set('Authorization', h.bearer({ solutions: ['globex'] }));
    expect(still.status).toBe(200);
  });
});
