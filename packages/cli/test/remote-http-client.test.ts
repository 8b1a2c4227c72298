import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { TransportFailure, UsageFailure } from '../src/remote/failures';
import { joinUrl, jsonOf, send } from '../src/remote/http-client';
import { startServer } from './remote-support/http-server';

describe('send', () => {
  it('sends the bearer token, the body and its type, and asks for JSON unless told otherwise', async () => {
    const server = await startServer(() => ({ status: 409, json: { detail: 'x' }, headers: { 'Policy-Revision': '3' } }));
    try {
      const answer = await send({ method: 'PUT', url: `${server.url}/ws/x`, service: 'pap', token: 't0k', body: '<a/>', contentType: 'application/xml' });
      expect(answer.status).toBe(409);
      expect(answer.headers.get('policy-revision')).toBe('3');
      expect(jsonOf(answer)).toEqual({ detail: 'x' });
      expect(server.requests[0]).toMatchObject({ method: 'PUT', url: '/ws/x', body: '<a/>' });
      expect(server.requests[0]?.headers).toMatchObject({ authorization: 'Bearer t0k', 'content-type': 'application/xml', accept: 'application/json' });
      await send({ method: 'GET', url: server.url, service: 'pap', accept: 'application/xml' });
      expect(server.requests[1]?.headers.authorization).toBeUndefined();
      expect(server.requests[1]?.headers.accept).toBe('application/xml');
    } finally {
      await server.close();
    }
  });

  it('gives up on a server that does not answer, in one sentence', async () => {
    // Accepts the connection and never answers.
    const silent: Server = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as AddressInfo;
    try {
      const failure = send({ method: 'GET', url: `http://127.0.0.1:${port}/x`, service: 'pdp', timeoutMs: 200 });
      await expect(failure).rejects.toThrow(new TransportFailure(`pdp at http://127.0.0.1:${port} did not answer within 0.2 s`));
    } finally {
      silent.closeAllConnections();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });

  it('refuses what is not an http(s) URL before sending anything', async () => {
    await expect(send({ method: 'GET', url: 'not a url', service: 'pap' })).rejects.toThrow(new UsageFailure('`not a url` is not a URL'));
    await expect(send({ method: 'GET', url: 'file:///etc/passwd', service: 'pap' })).rejects.toThrow(UsageFailure);
  });
});

describe('send and redirects', () => {
  it.each([301, 302, 303, 307, 308])('refuses a %i to another origin, naming it, and sends nothing there', async (status) => {
    const elsewhere = await startServer(() => ({ json: { access_token: 'stolen' } }));
    const redirecting = await startServer(() => ({ status, headers: { Location: `${elsewhere.url}/collect?x=1` } }));
    try {
      const body = 'grant_type=client_credentials&client_id=admin&client_secret=s3cret';
      const failure = send({ method: 'POST', url: `${redirecting.url}/oauth/token`, service: 'auth', body, contentType: 'application/x-www-form-urlencoded' });
      await expect(failure).rejects.toThrow(
        new UsageFailure(
          `auth at ${redirecting.url} answered ${status} redirecting to \`${elsewhere.url}/collect?x=1\`; ` +
            'custos follows no redirects, since it would send the credentials along: use the final URL if you trust it',
        ),
      );
      expect(redirecting.requests).toHaveLength(1);
      expect(elsewhere.requests).toEqual([]);
    } finally {
      await Promise.all([redirecting.close(), elsewhere.close()]);
    }
  });

  it('names a relative Location as the absolute URL it points to, and a bearer token goes nowhere else either', async () => {
    const redirecting = await startServer(() => ({ status: 307, headers: { Location: '/v2/ws/policy' } }));
    try {
      const failure = send({ method: 'GET', url: `${redirecting.url}/ws/policy`, service: 'pap', token: 't0k' });
      await expect(failure).rejects.toThrow(`redirecting to \`${redirecting.url}/v2/ws/policy\``);
      expect(redirecting.requests.map((request) => request.url)).toEqual(['/ws/policy']);
    } finally {
      await redirecting.close();
    }
  });

  it('passes on a 3xx that is no redirect as an answer', async () => {
    const server = await startServer(() => ({ status: 304 }));
    try {
      expect((await send({ method: 'GET', url: server.url, service: 'pap' })).status).toBe(304);
    } finally {
      await server.close();
    }
  });
});

describe('joinUrl', () => {
  it('joins with exactly one slash', () => {
    expect(joinUrl('http://a:1/', '/ws/policy')).toBe('http://a:1/ws/policy');
    expect(joinUrl('http://a:1', '/ws/policy')).toBe('http://a:1/ws/policy');
    expect(joinUrl('http://gw/custos//', '/event')).toBe('http://gw/custos/event');
  });
});
