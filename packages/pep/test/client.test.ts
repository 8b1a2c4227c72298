import { CustosClient } from '../src/client';
import type { CustosClientOptions } from '../src/options';
import { AuthenticationError, ConfigurationError, DecisionDeniedError } from '../src/errors';
import { answer, employee, failureOf, useClientBench } from './client-bench';
import { decision, json, modifier } from './servers';

/** `decide` and `enforce` against real HTTP servers standing in for the token endpoint and the pdp's `POST /event`. */
const bench = useClientBench(() => answer(decision()));

describe('decide', () => {
  it('posts the event with a bearer token and returns the decision with its revision', async () => {
    const result = await bench.client().decide(employee());
    expect(result).toEqual({ ...decision(), policyRevision: 3 });
    const [request] = bench.pdp.seen;
    expect(request?.method).toBe('POST');
    expect(request?.url).toBe('/event');
    expect(request?.headers.authorization).toBe('Bearer token-1');
    expect(request?.headers['content-type']).toBe('application/json');
    expect(JSON.parse(request?.body ?? '')).toEqual(employee());
    expect(request?.headers['min-policy-revision']).toBeUndefined();
  });

  it('returns an inhibiting decision instead of rejecting', async () => {
    bench.pdp.handle(answer(decision([], { allowed: false })));
    expect((await bench.client().decide(employee())).eventAllowed).toBe(false);
  });

  it('keeps the pdp base path of a gateway', async () => {
    const custos = new CustosClient({ pdpUrl: `${bench.pdp.url}/custos/`, authUrl: bench.tokens.url, clientId: 'pep', clientSecret: 'pep-secret' });
    await custos.decide(employee());
    expect(bench.pdp.seen[0]?.url).toBe('/custos/event');
  });

  it('uses one token for many calls', async () => {
    const custos = bench.client();
    await Promise.all([custos.decide(employee()), custos.decide(employee()), custos.decide(employee())]);
    await custos.decide(employee());
    expect(bench.tokens.issued).toEqual(['token-1']);
    expect(bench.pdp.seen.map((seen) => seen.headers.authorization)).toEqual(Array(4).fill('Bearer token-1'));
  });
});

describe('enforce', () => {
  it('resolves with a modified deep copy and leaves the caller’s event alone', async () => {
    bench.pdp.handle(
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
    const result = await bench.client().enforce(original);
    expect(original).toEqual(snapshot);
    expect(result.event).toEqual({
      ...snapshot,
      parameters: [{ name: 'user', value: { value: { name: { firstName: 'Ann', lastName: 'L.' }, salary: 5000 }, type: 'java.lang.Object', isComplex: true } }],
    });
    expect(result.event.parameters[0]?.value.value).not.toBe(original.parameters[0]?.value.value);
    expect(result).toMatchObject({ delayMs: 0, delayApplied: true, decision: { policyRevision: 3 } });
  });

  it('rejects an inhibited event with DecisionDeniedError carrying the decision', async () => {
    bench.pdp.handle(answer(decision([], { allowed: false })));
    const error = await failureOf(bench.client().enforce(employee()));
    expect(error).toBeInstanceOf(DecisionDeniedError);
    expect((error as DecisionDeniedError).decision).toEqual({ ...decision([], { allowed: false }), policyRevision: 3 });
    expect(error.message).toBe('the event was inhibited (decision `urn:decision:0193a5e2-7c4b-7d6e-9f10-2b3c4d5e6f70`)');
  });

  it('waits out the delay before resolving, or before rejecting a denial', async () => {
    const slept: number[] = [];
    let release: () => void = () => undefined;
    const custos = bench.client({ sleep: (ms) => new Promise<void>((resolve) => ((release = resolve), slept.push(ms))) });
    bench.pdp.handle(answer(decision([], { delay: 1500 })));
    let settled = false;
    const pending = custos.enforce(employee()).finally(() => (settled = true));
    await waitUntil(() => slept.length === 1);
    expect(slept).toEqual([1500]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    release();
    await expect(pending).resolves.toMatchObject({ delayMs: 1500, delayApplied: true });

    bench.pdp.handle(answer(decision([], { allowed: false, delay: 700 })));
    const denied = failureOf(custos.enforce(employee()));
    await waitUntil(() => slept.length === 2);
    expect(slept[1]).toBe(700);
    release();
    expect(await denied).toBeInstanceOf(DecisionDeniedError);
  });

  it('returns the delay unwaited with applyDelay: false', async () => {
    // An hour: had it been waited for, the test would time out.
    bench.pdp.handle(answer(decision([modifier('reason', '$', 'password')], { delay: 3_600_000 })));
    const result = await bench.client().enforce(employee(), { applyDelay: false });
    expect(result).toMatchObject({ delayMs: 3_600_000, delayApplied: false });
    expect(result.event.parameters[1]?.value.value).toBe('******');
  });
});

describe('tokens the pdp refuses', () => {
  it('fetches a new token once after a 401 and sends the request again', async () => {
    bench.pdp.handle((seen, res) => {
      if (seen.headers.authorization === 'Bearer token-2') json(res, 200, decision(), { 'Policy-Revision': '3' });
      else json(res, 401, { code: 'invalid_token' }, { 'WWW-Authenticate': 'Bearer error="invalid_token"' });
    });
    await expect(bench.client().decide(employee())).resolves.toMatchObject({ eventAllowed: true });
    expect(bench.tokens.issued).toEqual(['token-1', 'token-2']);
    expect(bench.pdp.seen.map((seen) => seen.headers.authorization)).toEqual(['Bearer token-1', 'Bearer token-2']);
  });

  it('gives up with AuthenticationError when the fresh token is refused too', async () => {
    bench.pdp.handle((_, res) => json(res, 401, { code: 'invalid_token', detail: 'the token is not valid' }));
    const error = await failureOf(bench.client().decide(employee()));
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error).toMatchObject({ status: 401, oauthError: 'invalid_token' });
    expect(bench.pdp.seen).toHaveLength(2);
  });

  it('reports credentials the token endpoint refuses without asking the pdp', async () => {
    const error = await failureOf(bench.client({ clientSecret: 'wrong' }).decide(employee()));
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(bench.pdp.seen).toHaveLength(0);
  });
});

describe('policy revisions', () => {
  it('sends Min-Policy-Revision when asked, and with monotonicRevisions the highest revision seen', async () => {
    const plain = bench.client();
    await plain.decide(employee(), { minPolicyRevision: 2 });
    await plain.decide(employee());
    expect(plain.policyRevision).toBe(3);

    const monotonic = bench.client({ monotonicRevisions: true });
    await monotonic.decide(employee());
    await monotonic.decide(employee());
    monotonic.noteRevision(8);
    monotonic.noteRevision(5);
    await monotonic.decide(employee(), { minPolicyRevision: 4 });
    expect(bench.pdp.seen.map((seen) => seen.headers['min-policy-revision'])).toEqual(['2', undefined, undefined, '3', '8']);
  });

  it('refuses a revision that is not a non-negative integer', async () => {
    await expect(bench.client().decide(employee(), { minPolicyRevision: -1 })).rejects.toThrow('`minPolicyRevision` must be a non-negative integer');
    expect(bench.pdp.seen).toHaveLength(0);
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
