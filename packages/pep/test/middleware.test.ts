import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CustosClient } from '../src/client';
import { type CustosError, DecisionDeniedError, TooManyRequestsError, TransportError } from '../src/errors';
import { event } from '../src/event-builder';
import type { MiddlewareOptions, RequestWithCustos } from '../src/middleware';
import { decision, json, modifier, TestServer, tokenServer, type Handler } from './servers';

type AppRequest = IncomingMessage & Partial<RequestWithCustos> & { enforced?: unknown };

let tokens: Awaited<ReturnType<typeof tokenServer>>;
let pdp: TestServer;
let app: Server;
let appUrl = '';
const handled: AppRequest[] = [];
const reported: CustosError[] = [];

/** A node:http application whose one route runs the middleware, then a handler echoing the enforced event. */
async function startApp(options: Partial<MiddlewareOptions<AppRequest>> = {}): Promise<void> {
  const custos = new CustosClient({ pdpUrl: pdp.url, authUrl: tokens.url, clientId: 'pep', clientSecret: 'pep-secret', timeoutMs: 2000 });
  const guard = custos.middleware<AppRequest>({
    event: (req) => event('acme', 'show-employee', { path: req.url ?? '', user: { name: 'Ann', id: req.headers['x-user'] ?? 'anonymous' } }),
    onError: (error) => reported.push(error),
    ...options,
  });
  app = createServer((incoming, res) => {
    const req: AppRequest = incoming;
    void guard(req, res, (error?: unknown) => {
      if (error !== undefined) {
        res.statusCode = 500;
        res.end(`next got: ${(error as Error).message}`);
        return;
      }
      handled.push(req);
      json(res, 200, req.custos ?? req.enforced);
    });
  });
  await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
  appUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}`;
}

beforeEach(async () => {
  tokens = await tokenServer();
  pdp = await TestServer.start(decides(decision([modifier('user', '$.name', 'password')])));
  handled.length = 0;
  reported.length = 0;
});
afterEach(async () => {
  app.closeAllConnections();
  await new Promise((resolve) => app.close(resolve));
  await tokens.stop();
  await pdp.stop();
});

/** The pdp answers with `body` at revision 1. */
const decides = (body: unknown): Handler => (_, res) => json(res, 200, body, { 'Policy-Revision': '1' });

const DECISION_ID = 'urn:decision:0193a5e2-7c4b-7d6e-9f10-2b3c4d5e6f70';
const UNAVAILABLE = {
  type: 'urn:custos:problem:decision_unavailable',
  title: 'Service Unavailable',
  status: 503,
  detail: 'the request cannot be authorized right now',
  code: 'decision_unavailable',
};

/** Asserts the application's answer is the problem details `problem`, and that the handler never ran. */
async function expectProblem(response: Response, problem: Record<string, unknown> & { status: number }): Promise<void> {
  expect(response.status).toBe(problem.status);
  expect(response.headers.get('content-type')).toBe('application/problem+json');
  expect(await response.json()).toEqual(problem);
  expect(handled).toHaveLength(0);
}

describe('the middleware', () => {
  it('lets an allowed request through with the modified event on the request', async () => {
    await startApp();
    const response = await fetch(`${appUrl}/employees/7`, { headers: { 'X-User': 'u7' } });
    expect(response.status).toBe(200);
    const enforced = (await response.json()) as { event: { parameters: unknown[] }; decision: { policyRevision: number } };
    expect(enforced.event.parameters).toEqual([
      { name: 'path', value: { value: '/employees/7', type: 'java.lang.String', isComplex: false } },
      { name: 'user', value: { value: { name: '***', id: 'u7' }, type: 'java.lang.Object', isComplex: true } },
    ]);
    expect(enforced.decision.policyRevision).toBe(1);
    expect(handled).toHaveLength(1);
  });

  it('puts the enforcement where it is told', async () => {
    await startApp({ property: 'enforced' });
    const response = await fetch(`${appUrl}/x`);
    expect(((await response.json()) as { delayMs: number }).delayMs).toBe(0);
    expect(handled[0]?.custos).toBeUndefined();
  });

  it('answers 403 problem details to a denied request, which never reaches the handler', async () => {
    pdp.handle(decides(decision([], { allowed: false })));
    await startApp();
    await expectProblem(await fetch(`${appUrl}/employees/7`), {
      type: 'urn:custos:problem:event_inhibited',
      title: 'Forbidden',
      status: 403,
      detail: 'the request is not allowed by policy',
      code: 'event_inhibited',
      instance: DECISION_ID,
    });
    expect(reported[0]).toBeInstanceOf(DecisionDeniedError);
  });

  it('answers a denial with a delay (a rate limit) 429 with Retry-After in whole seconds, rounded up', async () => {
    pdp.handle(decides(decision([], { allowed: false, delay: 2500 })));
    await startApp({ enforce: { applyDelay: false } });
    const response = await fetch(`${appUrl}/search`);
    expect(response.headers.get('retry-after')).toBe('3');
    await expectProblem(response, {
      type: 'urn:custos:problem:rate_limited',
      title: 'Too Many Requests',
      status: 429,
      detail: 'the request is not allowed now; retry after 3 s',
      code: 'rate_limited',
      instance: DECISION_ID,
      retry_after_ms: 2500,
    });
  });

  it('answers a denial as onDenied says, handing it the denial and the request', async () => {
    pdp.handle(decides(decision([], { allowed: false, delay: 40 })));
    const seen: Array<{ delay: number; url: string | undefined }> = [];
    await startApp({
      enforce: { applyDelay: false },
      onDenied: (denial, req) => {
        seen.push({ delay: denial.decision.delay, url: req.url });
        return { status: 404, headers: { 'Content-Type': 'application/json', 'X-Why': 'hidden' }, body: { found: false } };
      },
    });
    const response = await fetch(`${appUrl}/secret`);
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.headers.get('x-why')).toBe('hidden');
    expect(await response.json()).toEqual({ found: false });
    expect(seen).toEqual([{ delay: 40, url: '/secret' }]);
    expect(handled).toHaveLength(0);
  });

  it('passes what onDenied throws to next, and refuses an onDenied that is not a function', async () => {
    pdp.handle(decides(decision([], { allowed: false })));
    await startApp({
      onDenied: () => {
        throw new Error('no answer for you');
      },
    });
    const response = await fetch(`${appUrl}/x`);
    expect(response.status).toBe(500);
    expect(await response.text()).toBe('next got: no answer for you');
    const custos = new CustosClient({ pdpUrl: pdp.url, authUrl: tokens.url, clientId: 'pep', clientSecret: 'pep-secret' });
    expect(() => custos.middleware({ event: () => event('acme', 'x', {}), onDenied: 403 as never })).toThrow('option `onDenied` must be a function');
  });

  it('answers 503 when Custos cannot be asked, without telling why', async () => {
    await startApp();
    await pdp.stop();
    const response = await fetch(`${appUrl}/employees/7`);
    expect(response.headers.get('retry-after')).toBeNull();
    await expectProblem(response, UNAVAILABLE);
    expect(reported[0]).toBeInstanceOf(TransportError);
    pdp = await TestServer.start(() => undefined);
  });

  it('answers 503 with the pdp’s Retry-After when the pdp refused for now (429) beyond the deadline', async () => {
    pdp.handle((_, res) => json(res, 429, { code: 'too_many_requests', detail: 'solution `acme` is past its rate' }, { 'Retry-After': '30' }));
    await startApp();
    const response = await fetch(`${appUrl}/employees/7`);
    expect(response.headers.get('retry-after')).toBe('30');
    await expectProblem(response, { ...UNAVAILABLE, detail: 'the request cannot be authorized right now; retry after 30 s', retry_after_ms: 30_000 });
    expect(reported[0]).toBeInstanceOf(TooManyRequestsError);
    // Refused at once: 30 s do not fit the client's 2 s deadline, so the pdp was asked once.
    expect(pdp.seen).toHaveLength(1);
  });

  it('answers 503 with the token endpoint’s Retry-After when it refuses to issue a token for now', async () => {
    tokens.handle((_, res) => json(res, 429, { error: 'too_many_requests', error_description: 'too many failed attempts; retry in 90 s' }, { 'Retry-After': '90' }));
    await startApp();
    const response = await fetch(`${appUrl}/employees/7`);
    expect(response.headers.get('retry-after')).toBe('90');
    expect(response.status).toBe(503);
    expect(reported[0]).toMatchObject({ code: 'too_many_requests', url: `${tokens.url}/oauth/token` });
    expect(pdp.seen).toHaveLength(0);
  });

  it('answers 503 when the decision cannot be carried out', async () => {
    pdp.handle(decides(decision([modifier('user', '$', 'encrypt')])));
    await startApp();
    await expectProblem(await fetch(`${appUrl}/x`), UNAVAILABLE);
  });

  it('passes an error of the event builder to next', async () => {
    await startApp({ event: () => event('acme', 'x', { when: new Date(0) }) });
    const response = await fetch(`${appUrl}/x`);
    expect(response.status).toBe(500);
    expect(await response.text()).toBe('next got: parameter `when` at `$`: only plain objects and arrays travel as JSON');
    expect(pdp.seen).toHaveLength(0);
  });
});
