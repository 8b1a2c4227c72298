import { TooManyRequestsError, TransportError } from '../src/errors';
import { answer, employee, failureOf, useClientBench } from './client-bench';
import { decision, json, TestServer, type Handler } from './servers';

/** Which failed decision requests are sent again, and which never are: a repeat may record an event twice. */
const bench = useClientBench(() => answer(decision()));

describe('retrying only what is safe', () => {
  it('retries a refused connection and reaches a pdp that started meanwhile', async () => {
    const port = Number(new URL(bench.pdp.url).port);
    await bench.pdp.stop();
    bench.pdp = new TestServer(answer(decision()));
    const custos = bench.client({ pdpUrl: `http://127.0.0.1:${port}`, onRetry: (info) => (bench.retries.push(info), bench.pdp.listenNow(port)) });
    await expect(custos.decide(employee())).resolves.toMatchObject({ eventAllowed: true });
    expect(bench.retries).toEqual([expect.objectContaining({ operation: 'decision', attempt: 1, error: expect.any(TransportError) as unknown })]);
    expect(bench.pdp.seen).toHaveLength(1);
  });

  it('gives up on a refused connection after the configured attempts', async () => {
    const url = bench.pdp.url;
    await bench.pdp.stop();
    const error = await failureOf(bench.client({ pdpUrl: url, retry: { attempts: 4, baseDelayMs: 1 } }).decide(employee()));
    expect(error).toBeInstanceOf(TransportError);
    expect(bench.retries).toHaveLength(3);
    bench.pdp = await TestServer.start(answer(decision()));
  });

  it('retries a 503 the pdp sends before deciding, but no other 503', async () => {
    let calls = 0;
    bench.pdp.handle((_, res) => {
      calls += 1;
      if (calls === 1) json(res, 503, { code: 'policy_revision_unavailable' }, { 'Retry-After': '0' });
      else json(res, 200, decision(), { 'Policy-Revision': '9' });
    });
    await expect(bench.client().decide(employee(), { minPolicyRevision: 9 })).resolves.toMatchObject({ policyRevision: 9 });
    expect(bench.pdp.seen.map((seen) => seen.headers['min-policy-revision'])).toEqual(['9', '9']);

    bench.pdp.handle((_, res) => {
      res.writeHead(503, { 'Content-Type': 'text/html' });
      res.end('<h1>upstream unavailable</h1>');
    });
    const error = await failureOf(bench.client().decide(employee()));
    expect(error).toMatchObject({ status: 503 });
    expect(bench.pdp.seen).toHaveLength(3);
  });
});

describe('a 429 from the admission of the pdp', () => {
  const tooMany = (retryAfter: string | undefined) => (res: Parameters<Handler>[1]) =>
    json(res, 429, { code: 'too_many_requests', detail: 'solution `acme` is past its rate' }, retryAfter === undefined ? {} : { 'Retry-After': retryAfter });

  it('is retried once after Retry-After when that fits the deadline, and the second answer counts', async () => {
    let calls = 0;
    bench.pdp.handle((_, res) => {
      calls += 1;
      if (calls === 1) tooMany('0')(res);
      else json(res, 200, decision(), { 'Policy-Revision': '4' });
    });
    await expect(bench.client().decide(employee())).resolves.toMatchObject({ policyRevision: 4 });
    expect(bench.pdp.seen).toHaveLength(2);
    expect(bench.retries).toEqual([expect.objectContaining({ operation: 'decision', attempt: 1, delayMs: 0, error: expect.any(TooManyRequestsError) })]);
  });

  it('is retried only once: a second 429 rejects with TooManyRequestsError, even with attempts left', async () => {
    bench.pdp.handle((_, res) => tooMany('0')(res));
    const error = await failureOf(bench.client({ retry: { attempts: 5, baseDelayMs: 1 } }).decide(employee()));
    expect(error).toBeInstanceOf(TooManyRequestsError);
    expect(error).toMatchObject({ code: 'too_many_requests', status: 429, retryAfterMs: 0, problem: { code: 'too_many_requests' } });
    expect(bench.pdp.seen).toHaveLength(2);
  });

  it('rejects at once, without waiting into a timeout, when Retry-After ends after the deadline', async () => {
    bench.pdp.handle((_, res) => tooMany('30')(res));
    const error = await failureOf(bench.client({ timeoutMs: 5_000 }).decide(employee()));
    // A wait for the 30 s would have ended in a DecisionTimeoutError instead.
    expect(error).toBeInstanceOf(TooManyRequestsError);
    expect(error).toMatchObject({ retryAfterMs: 30_000, url: `${bench.pdp.url}/event` });
    expect(error.message).toContain('retry after 30000 ms');
    expect(bench.pdp.seen).toHaveLength(1);
    expect(bench.retries).toHaveLength(0);
  });

  it('is not retried with `attempts: 1`, and reads an HTTP-date Retry-After', async () => {
    const inOneMinute = new Date(Date.now() + 60_000).toUTCString();
    bench.pdp.handle((_, res) => tooMany(inOneMinute)(res));
    const error = await failureOf(bench.client({ retry: { attempts: 1 } }).decide(employee()));
    expect(error).toBeInstanceOf(TooManyRequestsError);
    const { retryAfterMs } = error as TooManyRequestsError;
    // toUTCString drops the milliseconds: between 59 and 60 s.
    expect(retryAfterMs).toBeGreaterThan(58_000);
    expect(retryAfterMs).toBeLessThanOrEqual(60_000);
    expect(bench.pdp.seen).toHaveLength(1);
  });

  it('fails closed with `failClosed: false` too: the pdp answered, it was not unreachable', async () => {
    bench.pdp.handle((_, res) => tooMany('30')(res));
    await expect(bench.client({ failClosed: false }).enforce(employee())).rejects.toBeInstanceOf(TooManyRequestsError);
  });
});
