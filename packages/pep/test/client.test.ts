import type { Event } from '@custos/contracts';
import { CustosClient } from '../src/client';
import {
  AuthenticationError,
  ConfigurationError,
  DecisionDeniedError,
  DecisionTimeoutError,
  JsonPathError,
  MalformedDecisionError,
  ModifierError,
  TooManyRequestsError,
  TransportError,
  UnexpectedStatusError,
  UnsupportedModifierError,
} from '../src/errors';
import { event } from '../src/event-builder';
import type { CustosClientOptions } from '../src/options';
import { decision, json, modifier, TestServer, tokenServer, type Handler } from './servers';

let tokens: Awaited<ReturnType<typeof tokenServer>>;
let pdp: TestServer;
const retries: unknown[] = [];

beforeEach(async () => {
  tokens = await tokenServer();
  pdp = await TestServer.start((_, res) => json(res, 200, decision(), { 'Policy-Revision': '3' }));
  retries.length = 0;
});
afterEach(async () => {
  await tokens.stop();
  await pdp.stop();
});

const client = (options: Partial<CustosClientOptions> = {}) =>
  new CustosClient({
    pdpUrl: pdp.url,
    authUrl: tokens.url,
    clientId: 'pep',
    clientSecret: 'pep-secret',
    retry: { baseDelayMs: 1, maxDelayMs: 5 },
    onRetry: (info) => retries.push(info),
    ...options,
  });

const employee = (): Event => event('acme', 'show-employee', { user: { name: { firstName: 'Ann', lastName: 'Lee' }, salary: 5234 }, reason: 'review' }, { timestamp: 1763798400000 });
const answer = (body: unknown, headers: Record<string, string> = { 'Policy-Revision': '3' }): Handler => (_, res) => json(res, 200, body, headers);
const failureOf = (promise: Promise<unknown>): Promise<Error> =>
  promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error as Error,
  );

describe('decide', () => {
  it('posts the event with a bearer token and returns the decision with its revision', async () => {
    const result = await client().decide(employee());
    expect(result).toEqual({ ...decision(), policyRevision: 3 });
    const [request] = pdp.seen;
    expect(request?.method).toBe('POST');
    expect(request?.url).toBe('/event');
    expect(request?.headers.authorization).toBe('Bearer token-1');
    expect(request?.headers['content-type']).toBe('application/json');
    expect(JSON.parse(request?.body ?? '')).toEqual(employee());
    expect(request?.headers['min-policy-revision']).toBeUndefined();
  });

  it('returns an inhibiting decision instead of rejecting', async () => {
    pdp.handle(answer(decision([], { allowed: false })));
    expect((await client().decide(employee())).eventAllowed).toBe(false);
  });

  it('keeps the pdp base path of a gateway', async () => {
    const custos = new CustosClient({ pdpUrl: `${pdp.url}/custos/`, authUrl: tokens.url, clientId: 'pep', clientSecret: 'pep-secret' });
    await custos.decide(employee());
    expect(pdp.seen[0]?.url).toBe('/custos/event');
  });

  it('uses one token for many calls', async () => {
    const custos = client();
    await Promise.all([custos.decide(employee()), custos.decide(employee()), custos.decide(employee())]);
    await custos.decide(employee());
    expect(tokens.issued).toEqual(['token-1']);
    expect(pdp.seen.map((seen) => seen.headers.authorization)).toEqual(Array(4).fill('Bearer token-1'));
  });
});

describe('enforce', () => {
  it('resolves with a modified deep copy and leaves the caller’s event alone', async () => {
    pdp.handle(
      answer(
        decision([
          modifier('user', '$.name.lastName', 'shorten'),
          modifier('user', '$.salary', 'round', { interval: 1000, mode: 'DOWN' }),
          modifier('reason', '$', 'delete'),
        ]),
      ),
    );
    const original = employee();
    const snapshot = structuredClone(original);
    const result = await client().enforce(original);
    expect(original).toEqual(snapshot);
    expect(result.event).toEqual({
      ...snapshot,
      parameters: [{ name: 'user', value: { value: { name: { firstName: 'Ann', lastName: 'L.' }, salary: 5000 }, type: 'java.lang.Object', isComplex: true } }],
    });
    expect(result.event.parameters[0]?.value.value).not.toBe(original.parameters[0]?.value.value);
    expect(result).toMatchObject({ delayMs: 0, delayApplied: true, decision: { policyRevision: 3 } });
  });

  it('rejects an inhibited event with DecisionDeniedError carrying the decision', async () => {
    pdp.handle(answer(decision([], { allowed: false })));
    const error = await failureOf(client().enforce(employee()));
    expect(error).toBeInstanceOf(DecisionDeniedError);
    expect((error as DecisionDeniedError).decision).toEqual({ ...decision([], { allowed: false }), policyRevision: 3 });
    expect(error.message).toBe('the event was inhibited (decision `urn:decision:0193a5e2-7c4b-7d6e-9f10-2b3c4d5e6f70`)');
  });

  it('waits out the delay before resolving, or before rejecting a denial', async () => {
    const slept: number[] = [];
    let release: () => void = () => undefined;
    const custos = client({ sleep: (ms) => new Promise<void>((resolve) => ((release = resolve), slept.push(ms))) });
    pdp.handle(answer(decision([], { delay: 1500 })));
    let settled = false;
    const pending = custos.enforce(employee()).finally(() => (settled = true));
    await waitUntil(() => slept.length === 1);
    expect(slept).toEqual([1500]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    release();
    await expect(pending).resolves.toMatchObject({ delayMs: 1500, delayApplied: true });

    pdp.handle(answer(decision([], { allowed: false, delay: 700 })));
    const denied = failureOf(custos.enforce(employee()));
    await waitUntil(() => slept.length === 2);
    expect(slept[1]).toBe(700);
    release();
    expect(await denied).toBeInstanceOf(DecisionDeniedError);
  });

  it('returns the delay unwaited with applyDelay: false', async () => {
    // An hour: had it been waited for, the test would time out.
    pdp.handle(answer(decision([modifier('reason', '$', 'password')], { delay: 3_600_000 })));
    const result = await client().enforce(employee(), { applyDelay: false });
    expect(result).toMatchObject({ delayMs: 3_600_000, delayApplied: false });
    expect(result.event.parameters[1]?.value.value).toBe('******');
  });
});

describe('tokens the pdp refuses', () => {
  it('fetches a new token once after a 401 and sends the request again', async () => {
    pdp.handle((seen, res) => {
      if (seen.headers.authorization === 'Bearer token-2') json(res, 200, decision(), { 'Policy-Revision': '3' });
      else json(res, 401, { code: 'invalid_token' }, { 'WWW-Authenticate': 'Bearer error="invalid_token"' });
    });
    await expect(client().decide(employee())).resolves.toMatchObject({ eventAllowed: true });
    expect(tokens.issued).toEqual(['token-1', 'token-2']);
    expect(pdp.seen.map((seen) => seen.headers.authorization)).toEqual(['Bearer token-1', 'Bearer token-2']);
  });

  it('gives up with AuthenticationError when the fresh token is refused too', async () => {
    pdp.handle((_, res) => json(res, 401, { code: 'invalid_token', detail: 'the token is not valid' }));
    const error = await failureOf(client().decide(employee()));
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error).toMatchObject({ status: 401, oauthError: 'invalid_token' });
    expect(pdp.seen).toHaveLength(2);
  });

  it('reports credentials the token endpoint refuses without asking the pdp', async () => {
    const error = await failureOf(client({ clientSecret: 'wrong' }).decide(employee()));
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(pdp.seen).toHaveLength(0);
  });
});

describe('failing closed against broken pdps', () => {
  it('times out when the pdp never answers, after one request', async () => {
    pdp.handle(() => undefined);
    const error = await failureOf(client({ timeoutMs: 300 }).enforce(employee()));
    expect(error).toBeInstanceOf(DecisionTimeoutError);
    expect(error).toMatchObject({ timeoutMs: 300 });
    expect((error.cause as Error).name).toBe('TimeoutError');
    expect(pdp.seen).toHaveLength(1);
  });

  it('times out when the pdp stalls in the middle of its answer', async () => {
    pdp.handle((_, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': '1000' });
      res.write('{"id":');
    });
    expect(await failureOf(client({ timeoutMs: 300 }).enforce(employee()))).toBeInstanceOf(DecisionTimeoutError);
  });

  it('honours a shorter timeout for one call', async () => {
    pdp.handle(() => undefined);
    expect(await failureOf(client({ timeoutMs: 60_000 }).decide(employee(), { timeoutMs: 200 }))).toMatchObject({ timeoutMs: 200 });
  });

  it('rejects with TransportError when the pdp closes the socket, and never sends the event again', async () => {
    pdp.handle((_, res, req) => void req.socket.destroy());
    const error = await failureOf(client().enforce(employee()));
    expect(error).toBeInstanceOf(TransportError);
    expect((error.cause as Error).message).toBe('fetch failed');
    expect(error.message).toBe(`cannot reach \`${pdp.url}/event\`: other side closed`);
    expect(pdp.seen).toHaveLength(1);
    expect(retries).toEqual([]);
  });

  it('rejects with UnexpectedStatusError on a 500, without repeating it', async () => {
    pdp.handle((_, res) => json(res, 500, { code: 'internal_error', detail: 'something broke' }));
    const error = await failureOf(client().enforce(employee()));
    expect(error).toBeInstanceOf(UnexpectedStatusError);
    expect(error).toMatchObject({ status: 500, problem: { code: 'internal_error' } });
    expect((error.cause as Error).message).toBe('status 500: something broke');
    expect(pdp.seen).toHaveLength(1);
  });

  it('rejects a 403 of a foreign solution as UnexpectedStatusError', async () => {
    pdp.handle((_, res) => json(res, 403, { code: 'insufficient_scope' }));
    expect(await failureOf(client().enforce(employee()))).toMatchObject({ status: 403, code: 'unexpected_status' });
  });

  it.each([
    ['text that is not JSON', '{"eventAllowed": tru', SyntaxError],
    ['a list', '[]', TypeError],
    ['eventAllowed as a string', JSON.stringify({ ...decision(), eventAllowed: 'yes' }), TypeError],
    ['a negative delay', JSON.stringify({ ...decision(), delay: -1 }), TypeError],
    ['two engines', JSON.stringify(decision([{ ...modifier('user', '$', 'delete'), engine: [{ method: 'delete', parameters: [] }, { method: 'hash', parameters: [] }] }])), TypeError],
    ['a parameter without a type', JSON.stringify(decision([{ name: 'u', expression: '$', engine: [{ method: 'replace', parameters: [{ name: 'replaceWith', value: { value: 1 } }] }] }])), TypeError],
  ])('rejects a malformed answer: %s', async (_, body, cause) => {
    pdp.handle((__, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Policy-Revision': '3' });
      res.end(body);
    });
    const error = await failureOf(client().enforce(employee()));
    expect(error).toBeInstanceOf(MalformedDecisionError);
    expect(error.cause).toBeInstanceOf(cause);
  });

  it('rejects a Policy-Revision that is not a revision', async () => {
    pdp.handle(answer(decision(), { 'Policy-Revision': 'latest' }));
    expect(await failureOf(client().decide(employee()))).toBeInstanceOf(MalformedDecisionError);
  });

  it('rejects a decision with an unknown modifier method, a path it cannot apply, or a value of the wrong kind', async () => {
    pdp.handle(answer(decision([modifier('user', '$.name', 'encrypt', { key: 'k' })])));
    const unknown = await failureOf(client().enforce(employee()));
    expect(unknown).toBeInstanceOf(UnsupportedModifierError);
    expect(unknown).toMatchObject({ method: 'encrypt', context: { index: 0, decision: { policyRevision: 3 } } });

    pdp.handle(answer(decision([modifier('user', '$.name[?@ == "Ann"]', 'delete')])));
    expect(await failureOf(client().enforce(employee()))).toBeInstanceOf(JsonPathError);

    pdp.handle(answer(decision([modifier('user', '$.salary', 'append', { suffix: ' EUR' })])));
    expect(await failureOf(client().enforce(employee()))).toBeInstanceOf(ModifierError);
  });
});

describe('retrying only what is safe', () => {
  it('retries a refused connection and reaches a pdp that started meanwhile', async () => {
    const port = Number(new URL(pdp.url).port);
    await pdp.stop();
    pdp = new TestServer(answer(decision()));
    const custos = client({ pdpUrl: `http://127.0.0.1:${port}`, onRetry: (info) => (retries.push(info), pdp.listenNow(port)) });
    await expect(custos.decide(employee())).resolves.toMatchObject({ eventAllowed: true });
    expect(retries).toEqual([expect.objectContaining({ operation: 'decision', attempt: 1, error: expect.any(TransportError) as unknown })]);
    expect(pdp.seen).toHaveLength(1);
  });

  it('gives up on a refused connection after the configured attempts', async () => {
    const url = pdp.url;
    await pdp.stop();
    const error = await failureOf(client({ pdpUrl: url, retry: { attempts: 4, baseDelayMs: 1 } }).decide(employee()));
    expect(error).toBeInstanceOf(TransportError);
    expect(retries).toHaveLength(3);
    pdp = await TestServer.start(answer(decision()));
  });

  it('retries a 503 the pdp sends before deciding, but no other 503', async () => {
    let calls = 0;
    pdp.handle((_, res) => {
      calls += 1;
      if (calls === 1) json(res, 503, { code: 'policy_revision_unavailable' }, { 'Retry-After': '0' });
      else json(res, 200, decision(), { 'Policy-Revision': '9' });
    });
    await expect(client().decide(employee(), { minPolicyRevision: 9 })).resolves.toMatchObject({ policyRevision: 9 });
    expect(pdp.seen.map((seen) => seen.headers['min-policy-revision'])).toEqual(['9', '9']);

    pdp.handle((_, res) => {
      res.writeHead(503, { 'Content-Type': 'text/html' });
      res.end('<h1>upstream unavailable</h1>');
    });
    const error = await failureOf(client().decide(employee()));
    expect(error).toMatchObject({ status: 503 });
    expect(pdp.seen).toHaveLength(3);
  });
});

describe('a 429 from the admission of the pdp', () => {
  const tooMany = (retryAfter: string | undefined) => (res: Parameters<Handler>[1]) =>
    json(res, 429, { code: 'too_many_requests', detail: 'solution `acme` is past its rate' }, retryAfter === undefined ? {} : { 'Retry-After': retryAfter });

  it('is retried once after Retry-After when that fits the deadline, and the second answer counts', async () => {
    let calls = 0;
    pdp.handle((_, res) => {
      calls += 1;
      if (calls === 1) tooMany('0')(res);
      else json(res, 200, decision(), { 'Policy-Revision': '4' });
    });
    await expect(client().decide(employee())).resolves.toMatchObject({ policyRevision: 4 });
    expect(pdp.seen).toHaveLength(2);
    expect(retries).toEqual([expect.objectContaining({ operation: 'decision', attempt: 1, delayMs: 0, error: expect.any(TooManyRequestsError) })]);
  });

  it('is retried only once: a second 429 rejects with TooManyRequestsError, even with attempts left', async () => {
    pdp.handle((_, res) => tooMany('0')(res));
    const error = await failureOf(client({ retry: { attempts: 5, baseDelayMs: 1 } }).decide(employee()));
    expect(error).toBeInstanceOf(TooManyRequestsError);
    expect(error).toMatchObject({ code: 'too_many_requests', status: 429, retryAfterMs: 0, problem: { code: 'too_many_requests' } });
    expect(pdp.seen).toHaveLength(2);
  });

  it('rejects at once, without waiting into a timeout, when Retry-After ends after the deadline', async () => {
    pdp.handle((_, res) => tooMany('30')(res));
    const error = await failureOf(client({ timeoutMs: 5_000 }).decide(employee()));
    // A wait for the 30 s would have ended in a DecisionTimeoutError instead.
    expect(error).toBeInstanceOf(TooManyRequestsError);
    expect(error).toMatchObject({ retryAfterMs: 30_000, url: `${pdp.url}/event` });
    expect(error.message).toContain('retry after 30000 ms');
    expect(pdp.seen).toHaveLength(1);
    expect(retries).toHaveLength(0);
  });

  it('is not retried with `attempts: 1`, and reads an HTTP-date Retry-After', async () => {
    const inOneMinute = new Date(Date.now() + 60_000).toUTCString();
    pdp.handle((_, res) => tooMany(inOneMinute)(res));
    const error = await failureOf(client({ retry: { attempts: 1 } }).decide(employee()));
    expect(error).toBeInstanceOf(TooManyRequestsError);
    const { retryAfterMs } = error as TooManyRequestsError;
    // toUTCString drops the milliseconds: between 59 and 60 s.
    expect(retryAfterMs).toBeGreaterThan(58_000);
    expect(retryAfterMs).toBeLessThanOrEqual(60_000);
    expect(pdp.seen).toHaveLength(1);
  });

  it('fails closed with `failClosed: false` too: the pdp answered, it was not unreachable', async () => {
    pdp.handle((_, res) => tooMany('30')(res));
    await expect(client({ failClosed: false }).enforce(employee())).rejects.toBeInstanceOf(TooManyRequestsError);
  });
});

describe('policy revisions', () => {
  it('sends Min-Policy-Revision when asked, and with monotonicRevisions the highest revision seen', async () => {
    const plain = client();
    await plain.decide(employee(), { minPolicyRevision: 2 });
    await plain.decide(employee());
    expect(plain.policyRevision).toBe(3);

    const monotonic = client({ monotonicRevisions: true });
    await monotonic.decide(employee());
    await monotonic.decide(employee());
    monotonic.noteRevision(8);
    monotonic.noteRevision(5);
    await monotonic.decide(employee(), { minPolicyRevision: 4 });
    expect(pdp.seen.map((seen) => seen.headers['min-policy-revision'])).toEqual(['2', undefined, undefined, '3', '8']);
  });

  it('refuses a revision that is not a non-negative integer', async () => {
    await expect(client().decide(employee(), { minPolicyRevision: -1 })).rejects.toThrow('`minPolicyRevision` must be a non-negative integer');
    expect(pdp.seen).toHaveLength(0);
  });
});

describe('failClosed: false', () => {
  const open = () => client({ failClosed: false, timeoutMs: 300 });

  it('lets the event through unchanged when the pdp cannot be reached or does not answer', async () => {
    pdp.handle((_, res, req) => void req.socket.destroy());
    const closed = await open().enforce(employee());
    expect(closed).toMatchObject({ event: employee(), decision: null, delayMs: 0 });
    expect(closed.failedOpen).toBeInstanceOf(TransportError);

    pdp.handle(() => undefined);
    expect((await open().enforce(employee())).failedOpen).toBeInstanceOf(DecisionTimeoutError);
  });

  it('still rejects a denial, an error status, a malformed answer and an unknown modifier', async () => {
    pdp.handle(answer(decision([], { allowed: false })));
    expect(await failureOf(open().enforce(employee()))).toBeInstanceOf(DecisionDeniedError);
    pdp.handle((_, res) => json(res, 500, {}));
    expect(await failureOf(open().enforce(employee()))).toBeInstanceOf(UnexpectedStatusError);
    pdp.handle((_, res) => void res.end('nonsense'));
    expect(await failureOf(open().enforce(employee()))).toBeInstanceOf(MalformedDecisionError);
    pdp.handle(answer(decision([modifier('user', '$', 'encrypt')])));
    expect(await failureOf(open().enforce(employee()))).toBeInstanceOf(UnsupportedModifierError);
    expect(await failureOf(client({ failClosed: false, clientSecret: 'wrong' }).enforce(employee()))).toBeInstanceOf(AuthenticationError);
  });
});

describe('configuration', () => {
  const base = () => ({ pdpUrl: 'http://127.0.0.1:8080', authUrl: 'http://127.0.0.1:8082', clientId: 'pep', clientSecret: 's' });

  it.each([
    [{ failClosed: 'false' }, 'option `failClosed` must be a boolean'],
    [{ pdpUrl: 'ftp://x' }, 'option `pdpUrl` must be an http or https URL, got `ftp://x`'],
    [{ authUrl: 'not a url' }, 'option `authUrl` must be an http or https URL'],
    [{ pdpUrl: 'http://x/?a=1' }, 'option `pdpUrl` must not have a query or fragment'],
    [{ clientSecret: '' }, 'option `clientSecret` must be a non-empty string'],
    [{ timeoutMs: 0 }, 'option `timeoutMs` must be a positive number of milliseconds'],
    [{ retry: { attempts: 0 } }, 'option `retry.attempts` must be an integer of at least 1'],
  ])('refuses %p', (override, message) => {
    const create = () => new CustosClient({ ...base(), ...override } as unknown as CustosClientOptions);
    expect(create).toThrow(ConfigurationError);
    expect(create).toThrow(message);
  });
});

async function waitUntil(check: () => boolean): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not reached');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
