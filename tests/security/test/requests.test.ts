import { randomUUID } from 'node:crypto';
import {
  call,
  createClient,
  eventBody,
  isRunning,
  leakedSecrets,
  policyXml,
  rawRequest,
  rawSocket,
  securityStack,
  TENANT_SCOPES,
  tokenOf,
  tokenSecrets,
  type RawAnswer,
  type Stack,
} from './support/stack';

/**
 * Hostile URLs and headers: path traversal and encoded slashes in ids, unicode look-alikes, header
 * injection. Each is refused with a problem+json and no echo in a header; the processes keep serving.
 */
let stack: Stack;
let token: string;
const secrets: string[] = [];

beforeAll(async () => {
  stack = await securityStack();
  const admin = await stack.adminToken();
  const acme = await createClient(stack, admin, ['acme'], TENANT_SCOPES);
  token = await tokenOf(stack, acme);
  secrets.push(acme.secret, stack.env.BOOTSTRAP_CLIENT_SECRET!, ...tokenSecrets(token), ...tokenSecrets(admin));
  expect((await call('POST', `${stack.pap.url}/ws/policy`, { token, xml: policyXml('acme', 'real', 'show') })).status).toBe(201);
  expect((await call('POST', `${stack.pap.url}/ws/policy`, { token: admin, xml: policyXml('beta', 'secret', 'show') })).status).toBe(201);
}, 120_000);

afterAll(async () => {
  await stack?.stop();
}, 60_000);

const auth = () => ({ Authorization: `Bearer ${token}` });

function expectRawProblem(answer: RawAnswer, status: number, code: string, label: string): void {
  expect({ label, status: answer.status, type: answer.headers['content-type'], code: answer.body?.code }).toEqual({
    label,
    status,
    type: 'application/problem+json',
    code,
  });
}

describe('ids in URLs: traversal, encoded slashes, look-alikes', () => {
  const invalid: string[] = [
    '..%2F..%2Fetc',
    '..%2f..%2fetc%2fpasswd',
    '..%252F..%252Fetc',
    '%2e%2e%2f%2e%2e%2fetc',
    'urn:policy:acme:real%2F..%2F..%2Furn:policy:beta:secret',
    'urn:policy:acme:real%2Fdeploy',
    'urn:policy:acme:..%5C..%5Cetc',
    'urn:policy:acme:real%00',
    'urn:policy:acme:real%00.xml',
    'urn:policy:%D0%B0cme:real', // Cyrillic а
    'urn:policy:acme:re%E2%80%8Bal', // zero-width space
    'urn:policy:acme:%E2%80%AElaer', // right-to-left override
    'urn:policy:acme%EF%BC%9Areal', // fullwidth colon
    'urn:policy:ACME:real',
    'URN:policy:acme:real',
    'urn:policy:acme:real%0D%0ASet-Cookie:%20owned=1',
    'urn:policy:acme:real;beta',
    'urn:policy:acme:real%20',
    `urn:policy:acme:${'a'.repeat(10_000)}`,
  ];

  it.each(invalid.map((id) => [id.slice(0, 60), id]))('`%s` is a 400 invalid_id on every policy route', async (_label, id) => {
    for (const [method, suffix] of [['GET', ''], ['DELETE', ''], ['POST', '/deploy'], ['GET', '/revoke'], ['GET', '/status']] as const) {
      const answer = await rawRequest(stack.pap.url, method, `/ws/policy/${id}${suffix}`, { headers: auth() });
      expectRawProblem(answer, 400, 'invalid_id', `${method} ${suffix}`);
      expect(answer.headers['set-cookie']).toBeUndefined();
      expect(answer.text.length).toBeLessThan(2000); // the id is echoed bounded, in the JSON body only
    }
  });

  it('the same attacks on component ids', async () => {
    for (const id of ['..%2F..%2Fetc', 'urn:component:acme:pip:x%2F..%2Fy', 'urn:component:%D0%B0cme:pip:x', 'urn:component:acme:pip:x%00']) {
      expectRawProblem(await rawRequest(stack.pap.url, 'GET', `/ws/component/${id}`, { headers: auth() }), 400, 'invalid_id', id);
      expectRawProblem(await rawRequest(stack.pap.url, 'DELETE', `/ws/component/${id}`, { headers: auth() }), 400, 'invalid_id', id);
    }
  });

  it('unencoded dot segments and extra segments match no route (404), never another resource', async () => {
    for (const path of ['/ws/policy/../../etc/passwd', '/ws/policy/%2e%2e/%2e%2e/etc', '/ws/policy/urn:policy:acme:real/../urn:policy:beta:secret', '/ws/policy/urn:policy:acme:real/deploy/x']) {
      const answer = await rawRequest(stack.pap.url, 'GET', path, { headers: auth() });
      expect({ path, status: answer.status, code: answer.body?.code }).toEqual({ path, status: 404, code: 'not_found' });
    }
  });

  it('invalid percent-encoding (overlong UTF-8, encoded surrogates, truncated escapes) is a 400', async () => {
    for (const id of ['urn:policy:acme:%C0%AE%C0%AE', 'urn:policy:acme:%ED%A0%80', 'urn:policy:acme:%E0%A4%A', 'urn:policy:acme:%']) {
      expectRawProblem(await rawRequest(stack.pap.url, 'GET', `/ws/policy/${id}`, { headers: auth() }), 400, 'invalid_request', id);
    }
  });

  it('percent-encoded colons name the same id as plain ones: own works, foreign is 403 either way', async () => {
    const own = await rawRequest(stack.pap.url, 'GET', '/ws/policy/urn%3Apolicy%3Aacme%3Areal', { headers: auth() });
    expect(own.status).toBe(200);
    expect(own.body.id).toEqual({ identifier: 'urn:policy:acme:real' });
    for (const path of ['/ws/policy/urn%3Apolicy%3Abeta%3Asecret', '/ws/policy/urn:policy:beta:secret', '/ws/policy/urn:policy:beta:no-such']) {
      expectRawProblem(await rawRequest(stack.pap.url, 'GET', path, { headers: auth() }), 403, 'insufficient_scope', path);
    }
  });
});

describe('header injection', () => {
  const services = () => [stack.auth, stack.pap, stack.pdps[0]!];

  it('an X-Request-Id with encoded CR/LF or other unsafe text is replaced, never echoed', async () => {
    for (const service of services()) {
      for (const path of ['/health/live', '/no-such-route']) {
        for (const id of ['a%0D%0ASet-Cookie:%20owned=1', 'a b', 'x'.repeat(200), '<script>']) {
          const answer = await rawRequest(service.url, 'GET', path, { headers: { 'X-Request-Id': id } });
          expect(answer.headers['x-request-id']).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
          expect(answer.headers['set-cookie']).toBeUndefined();
        }
      }
    }
    const decision = await rawRequest(stack.pdps[0]!.url, 'POST', '/event', {
      headers: { ...auth(), 'Content-Type': 'application/json', 'X-Request-Id': 'a%0D%0ASet-Cookie:%20owned=1' },
      body: JSON.stringify(eventBody('acme', 'show')),
    });
    expect(decision.status).toBe(200);
    expect(decision.headers['x-request-id']).not.toContain('%');
    expect(decision.headers['set-cookie']).toBeUndefined();
  });

  it('CR or LF inside a header value never reaches the app: a 400 problem+json from every service', async () => {
    for (const service of services()) {
      for (const header of ['X-Request-Id: a\rSet-Cookie: owned=1', `Authorization: Bearer ${token}\rX-Evil: 1`, 'Min-Policy-Revision: 1\r\u0000']) {
        const answer = await rawSocket(service.url, `GET /health/live HTTP/1.1\r\nHost: x\r\n${header}\r\n\r\n`);
        expect({ service: service.name, head: answer.slice(0, answer.indexOf('\r\n')) }).toEqual({ service: service.name, head: 'HTTP/1.1 400 Bad Request' });
        expect(answer).toContain('Content-Type: application/problem+json');
        expect(answer).not.toMatch(/Set-Cookie|X-Evil/i);
      }
    }
  });

  it('request smuggling (Content-Length with chunked) and oversized headers are refused as problems', async () => {
    for (const service of services()) {
      const smuggled = await rawSocket(
        service.url,
        'POST /health/live HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET /metrics HTTP/1.1\r\nHost: x\r\n\r\n',
      );
      expect(smuggled).toMatch(/^HTTP\/1\.1 400 /);
      expect(smuggled).toContain('application/problem+json');
      expect(smuggled.match(/HTTP\/1\.1 \d{3} /g)).toHaveLength(1); // no second (smuggled) answer
      const huge = await rawSocket(service.url, `GET /health/live HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(40_000)}\r\n\r\n`);
      expect(huge).toMatch(/^HTTP\/1\.1 431 /);
      expect(huge).toContain('application/problem+json');
    }
  });

  it('Location carries only validated ids: CR/LF in a policy id is refused before any header is set', async () => {
    const injected = policyXml('acme', 'x', 'show').replace('id="urn:policy:acme:x"', 'id="urn:policy:acme:x&#13;&#10;Set-Cookie: owned=1"');
    const answer = await rawRequest(stack.pap.url, 'POST', '/ws/policy', { headers: { ...auth(), 'Content-Type': 'application/xml' }, body: injected });
    expectRawProblem(answer, 400, 'invalid_policy', 'crlf id');
    expect(answer.headers.location).toBeUndefined();
    expect(answer.headers['set-cookie']).toBeUndefined();
    const name = `loc-${randomUUID().slice(0, 8)}`;
    const added = await rawRequest(stack.pap.url, 'POST', '/ws/policy', {
      headers: { ...auth(), 'Content-Type': 'application/xml' },
      body: policyXml('acme', name, 'show'),
    });
    expect(added.status).toBe(201);
    expect(added.headers.location).toBe(`/ws/policy/urn:policy:acme:${name}`);
  });

  it('Min-Policy-Revision that is not a single integer is a 400, echoed only in the body', async () => {
    for (const value of ['1, 2', '-1', '1e3', 'x'.repeat(500), '99999999999999999999']) {
      const answer = await rawRequest(stack.pdps[0]!.url, 'POST', '/event', {
        headers: { ...auth(), 'Content-Type': 'application/json', 'Min-Policy-Revision': value },
        body: JSON.stringify(eventBody('acme', 'show')),
      });
      expectRawProblem(answer, 400, 'invalid_request', value.slice(0, 20));
      expect(answer.text.length).toBeLessThan(1000);
    }
  });
});

describe('afterwards', () => {
  it('every process still runs and answers', async () => {
    for (const service of [stack.auth, stack.pap, ...stack.pdps]) {
      expect(isRunning(service)).toBe(true);
      expect((await call('GET', `${service.url}/health/live`)).status).toBe(200);
    }
  });

  it('no secret leaked into outputs or metrics', async () => {
    expect(await leakedSecrets([stack.auth, stack.pap, ...stack.pdps], secrets)).toEqual([]);
  });
});
