import type { AddressInfo } from 'node:net';
import { request as httpRequest } from 'node:http';
import request from 'supertest';
import { TestAuthority } from '@custos/test-kit';
import jwt from 'jsonwebtoken';
import { SHOW, event, expectProblem, useFollowingStack } from './support/nats-stack';
import { useAuthority } from './support/use-pdp';

/** What the pdp refuses on its decision routes, each answer a problem with what and where, never a 500. */
describe('pdp-service over real NATS: bad input', () => {
  const auth = useAuthority();
  const { stack, decide } = useFollowingStack(() => auth.authority, () => auth.token);

  it('401 without a token, with a bare Bearer challenge', async () => {
    const response = await request(stack().server).post('/event').send(event());
    expectProblem(response, 401, 'unauthorized');
    expect(response.headers['www-authenticate']).toBe('Bearer realm="custos"');
  });

  it('401 for a forged token', async () => {
    // Another key pair, never published, claiming the real key id.
    const forged = new TestAuthority().mint({ scopes: ['event:decide'], solutions: ['acme'], kid: auth.authority.kid });
    const response = await request(stack().server).post('/event').set('Authorization', `Bearer ${forged}`).send(event());
    expectProblem(response, 401, 'invalid_token');
    expect(response.headers['www-authenticate']).toMatch(/^Bearer realm="custos", error="invalid_token"/);
    expect(response.text).not.toContain(forged);
  });

  it('401 for an HS256 token signed with the public key', async () => {
    const forged = jwt.sign({ scope: 'event:decide', solutions: ['*'] }, auth.authority.publicKeyPem(), {
      algorithm: 'HS256',
      keyid: auth.authority.kid,
      expiresIn: 600,
    });
    const response = await request(stack().server).post('/event').set('Authorization', `Bearer ${forged}`).send(event());
    expectProblem(response, 401, 'invalid_token');
  });

  it('401 for an expired token', async () => {
    const expired = auth.authority.mint({ scopes: ['event:decide'], solutions: ['acme'], expiresInSeconds: -300 });
    const response = await request(stack().server).post('/event').set('Authorization', `Bearer ${expired}`).send(event());
    expectProblem(response, 401, 'invalid_token');
    expect(response.body.detail).toMatch(/expired/);
  });

  it('403 without the event:decide scope', async () => {
    const reader = auth.authority.mint({ scopes: ['policy:read'], solutions: ['acme'] });
    const response = await request(stack().server).post('/event').set('Authorization', `Bearer ${reader}`).send(event());
    expectProblem(response, 403, 'insufficient_scope');
    expect(response.headers['www-authenticate']).toMatch(/error="insufficient_scope", scope="event:decide"/);
  });

  it('403 for an event of a foreign solution, in either actionId form, on both routes', async () => {
    const other = auth.authority.mint({ scopes: ['event:decide'], solutions: ['globex'] });
    for (const [path, body] of [
      ['/event', event()],
      ['/event/explain', event()],
      ['/event', event({ actionId: { urn: SHOW } })],
    ] as const) {
      const response = await request(stack().server).post(path).set('Authorization', `Bearer ${other}`).send(body);
      expectProblem(response, 403, 'insufficient_scope');
      expect(response.body.detail).toBe('the token does not grant access to this solution');
    }
    const everything = auth.authority.mint({ scopes: ['event:decide'], solutions: ['*'] });
    const allowed = await request(stack().server).post('/event').set('Authorization', `Bearer ${everything}`).send(event());
    expect(allowed.status).toBe(200);
  });

  it('415 for a body that is not JSON', async () => {
    const response = await request(stack().server)
      .post('/event')
      .set('Authorization', `Bearer ${auth.token}`)
      .set('Content-Type', 'text/plain')
      .send(JSON.stringify(event()));
    expectProblem(response, 415, 'unsupported_media_type');
    const latin = await request(stack().server)
      .post('/event')
      .set('Authorization', `Bearer ${auth.token}`)
      .set('Content-Type', 'application/json; charset=iso-8859-1')
      .send(JSON.stringify(event()));
    expectProblem(latin, 415, 'unsupported_media_type');
  });

  it('413 for a body over 1 MiB, declared or streamed', async () => {
    const big = JSON.stringify(event({ padding: 'x'.repeat(1024 * 1024) }));
    const response = await request(stack().server)
      .post('/event')
      .set('Authorization', `Bearer ${auth.token}`)
      .set('Content-Type', 'application/json')
      .send(big);
    expectProblem(response, 413, 'payload_too_large');

    const { port } = stack().server.address() as AddressInfo;
    const streamed = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(
        { host: '127.0.0.1', port, method: 'POST', path: '/event', headers: { Authorization: `Bearer ${auth.token}`, 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' } },
        (res) => {
          let body = '';
          res.on('data', (chunk: Buffer) => (body += chunk.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      req.on('error', reject);
      const piece = 'x'.repeat(64 * 1024);
      req.write('{"padding":"');
      for (let i = 0; i < 17; i++) req.write(piece);
      req.end('"}');
    });
    expect(streamed.status).toBe(413);
    expect(JSON.parse(streamed.body).code).toBe('payload_too_large');
    // Just under the limit is read (and then judged on its content).
    const fits = JSON.stringify({ ...event(), padding: 'x'.repeat(1024 * 1024 - 1000) });
    expect(Buffer.byteLength(fits)).toBeLessThanOrEqual(1024 * 1024);
    const ok = await request(stack().server).post('/event').set('Authorization', `Bearer ${auth.token}`).set('Content-Type', 'application/json').send(fits);
    expect(ok.status).toBe(200);
  });

  it('400 malformed_json with line and column', async () => {
    const response = await request(stack().server)
      .post('/event')
      .set('Authorization', `Bearer ${auth.token}`)
      .set('Content-Type', 'application/json')
      .send('{\n  "actionId": {"scope": "acme", "action": "show"},\n  "timestamp": ,\n}');
    expectProblem(response, 400, 'malformed_json');
    expect(response.body.errors[0]).toMatchObject({ line: 3, column: 16 });
    const empty = await request(stack().server).post('/event').set('Authorization', `Bearer ${auth.token}`).set('Content-Type', 'application/json').send('');
    expectProblem(empty, 400, 'malformed_json');
    expect(empty.body.detail).toBe('the body is empty');
  });

  it('400 invalid_event with the path of every violation', async () => {
    const response = await decide({
      actionId: { scope: 'acme', action: 'show' },
      timestamp: 'yesterday',
      parameters: [{ name: 'user' }, { name: '', value: { value: 1, isComplex: 'no' } }],
    });
    expectProblem(response, 400, 'invalid_event');
    const errors = response.body.errors as Array<{ path: string; message: string }>;
    expect(errors).toEqual(
      expect.arrayContaining([
        { path: 'timestamp', message: 'must be of type integer' },
        { path: 'parameters[0].value', message: 'is required' },
        expect.objectContaining({ path: 'parameters[1].name' }),
        { path: 'parameters[1].value.isComplex', message: 'must be of type boolean' },
      ]),
    );
    const missing = await decide({ parameters: [] });
    expect(missing.body.errors).toEqual(
      expect.arrayContaining([
        { path: 'actionId', message: 'is required' },
        { path: 'timestamp', message: 'is required' },
      ]),
    );
    const badAction = await decide(event({ actionId: { scope: 'ACME', action: 'show me' } }));
    expectProblem(badAction, 400, 'invalid_event');
    expect((badAction.body.errors as Array<{ path: string }>).map((e) => e.path)).toEqual(
      expect.arrayContaining(['actionId.scope', 'actionId.action']),
    );
    const notObject = await decide([1, 2]);
    expectProblem(notObject, 400, 'invalid_event');
    expect(notObject.body.errors).toEqual([{ path: '(body)', message: 'must be of type object' }]);
  });

  it('400 for repeated parameter names, with the path', async () => {
    const value = { value: 1, type: 'java.lang.Integer', isComplex: false };
    const response = await decide(event({ parameters: [{ name: 'a', value }, { name: 'b', value }, { name: 'a', value }] }));
    expectProblem(response, 400, 'invalid_event');
    expect(response.body.errors).toEqual([{ path: 'parameters[2].name', message: 'repeats the name of parameters[0]' }]);
  });

  it('405 with Allow: POST for other methods on the decision routes', async () => {
    for (const path of ['/event', '/event/explain']) {
      const get = await request(stack().server).get(path).set('Authorization', `Bearer ${auth.token}`);
      expectProblem(get, 405, 'method_not_allowed');
      expect(get.headers.allow).toBe('POST');
      const put = await request(stack().server).put(path).send(event());
      expectProblem(put, 405, 'method_not_allowed');
    }
  });

  it('404 for unknown routes', async () => {
    expectProblem(await request(stack().server).post('/eventz').set('Authorization', `Bearer ${auth.token}`).send(event()), 404, 'not_found');
    expectProblem(await request(stack().server).get('/nothing'), 404, 'not_found');
  });

  it('counts rejected requests', async () => {
    const metrics = (await request(stack().server).get('/metrics')).text;
    expect(metrics).toMatch(/decisions_total\{outcome="rejected",service="pdp-service"\} [1-9]/);
  });
});
