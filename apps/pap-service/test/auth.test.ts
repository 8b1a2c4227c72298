import request from 'supertest';
import { SCOPES } from '@custos/contracts';
import { TestAuthority } from '@custos/test-kit';
import { dump, policyXml, startHarness, type Harness } from './harness';

let h: Harness;
let forger: TestAuthority;
const id = 'urn:policy:acme:guarded';

beforeAll(async () => {
  h = await startHarness();
  forger = new TestAuthority();
  const added = await request(h.app).post('/ws/policy').set('Authorization', h.bearer()).type('application/xml').send(policyXml(id));
  expect(added.status).toBe(201);
  const deployed = await request(h.app).post(`/ws/policy/${id}/deploy`).set('Authorization', h.bearer());
  expect(deployed.body).toBe(true);
});
afterAll(async () => {
  await h.close();
});

interface Route {
  method: 'get' | 'post' | 'put' | 'delete';
  path: string;
  scope: string;
  xml?: boolean;
  json?: boolean;
}

const component = {
  id: { componentType: 'PIP', identifier: 'urn:component:acme:pip:x' },
  urls: ['http://x.example'],
  componentInterfaces: [],
};

const ROUTES: Route[] = [
  { method: 'post', path: '/ws/component', scope: SCOPES.componentWrite, json: true },
  { method: 'get', path: '/ws/component', scope: SCOPES.componentRead },
  { method: 'get', path: '/ws/component/urn:component:acme:pip:x', scope: SCOPES.componentRead },
  { method: 'delete', path: '/ws/component/urn:component:acme:pip:x', scope: SCOPES.componentWrite },
  { method: 'get', path: '/ws/policy/deployed', scope: SCOPES.policyRead },
  { method: 'post', path: '/ws/policy', scope: SCOPES.policyWrite, xml: true },
  { method: 'put', path: `/ws/policy/${id}`, scope: SCOPES.policyWrite, xml: true },
  { method: 'get', path: `/ws/policy/${id}`, scope: SCOPES.policyRead },
  { method: 'post', path: `/ws/policy/${id}/deploy`, scope: SCOPES.policyWrite },
  { method: 'get', path: `/ws/policy/${id}/revoke`, scope: SCOPES.policyWrite },
  { method: 'post', path: `/ws/policy/${id}/revoke`, scope: SCOPES.policyWrite },
  { method: 'delete', path: `/ws/policy/${id}`, scope: SCOPES.policyWrite },
  { method: 'get', path: `/ws/policy/${id}/status`, scope: SCOPES.policyRead },
  { method: 'get', path: '/ws/policy-ids', scope: SCOPES.policyRead },
  { method: 'get', path: '/ws/policy-ids/deployed', scope: SCOPES.policyRead },
];

function call(route: Route, authorization?: string) {
  let req = request(h.app)[route.method](route.path);
  if (authorization !== undefined) req = req.set('Authorization', authorization);
  if (route.xml) return req.set('Content-Type', 'application/xml').send(policyXml(route.method === 'put' ? id : 'urn:policy:acme:new'));
  if (route.json) return req.send(component);
  return req;
}

const name = (r: Route) => `${r.method.toUpperCase()} ${r.path}`;

describe.each(ROUTES.map((r) => [name(r), r] as const))('%s', (_name, route) => {
  const rejected = async (authorization: string | undefined, status: number, code: string, challenge: RegExp) => {
    const before = await dump(h.pool);
    const res = await call(route, authorization);
    expect(res.status).toBe(status);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body.code).toBe(code);
    expect(res.headers['www-authenticate']).toMatch(challenge);
    expect(res.headers['policy-revision']).toBeUndefined();
    expect(await dump(h.pool)).toEqual(before);
  };

  test('no token: 401 with a bare Bearer challenge', async () => {
    await rejected(undefined, 401, 'unauthorized', /^Bearer realm="custos"$/);
  });

  test('not a bearer token: 401', async () => {
    await rejected('Basic dXNlcjpwYXNz', 401, 'unauthorized', /^Bearer/);
  });

  test('a forged token: 401 invalid_token', async () => {
    await rejected(`Bearer ${forger.mint({ kid: h.authority.kid })}`, 401, 'invalid_token', /error="invalid_token"/);
  });

  test('an expired token: 401 invalid_token', async () => {
    await rejected(h.bearer({ expiresInSeconds: -300 }), 401, 'invalid_token', /error="invalid_token"/);
  });

  test('garbage: 401 invalid_token', async () => {
    await rejected('Bearer not.a.jwt', 401, 'invalid_token', /error="invalid_token"/);
  });

  test('a token without the scope: 403 insufficient_scope', async () => {
    const others = Object.values(SCOPES).filter((s) => s !== route.scope);
    await rejected(h.bearer({ scopes: others }), 403, 'insufficient_scope', new RegExp(`error="insufficient_scope", scope="${route.scope}"`));
  });

  test('a token with only that scope passes the check', async () => {
    const res = await call(route, h.bearer({ scopes: [route.scope] }));
    expect([401, 403]).not.toContain(res.status);
  });
});
