import { AuthenticationError, DecisionDeniedError, DecisionTimeoutError, JsonPathError, MalformedDecisionError, ModifierError, TransportError, UnexpectedStatusError, UnsupportedModifierError } from '../src/errors';
import { answer, employee, failureOf, useClientBench } from './client-bench';
import { decision, json, modifier } from './servers';

/** How `decide` and `enforce` fail closed (or, asked to, open) when the pdp breaks, answers nonsense or is not there. */
const bench = useClientBench(() => answer(decision()));

describe('failing closed against broken pdps', () => {
  it('times out when the pdp never answers, after one request', async () => {
    bench.pdp.handle(() => undefined);
    const error = await failureOf(bench.client({ timeoutMs: 300 }).enforce(employee()));
    expect(error).toBeInstanceOf(DecisionTimeoutError);
    expect(error).toMatchObject({ timeoutMs: 300 });
    expect((error.cause as Error).name).toBe('TimeoutError');
    expect(bench.pdp.seen).toHaveLength(1);
  });

  it('times out when the pdp stalls in the middle of its answer', async () => {
    bench.pdp.handle((_, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': '1000' });
      res.write('{"id":');
    });
    expect(await failureOf(bench.client({ timeoutMs: 300 }).enforce(employee()))).toBeInstanceOf(DecisionTimeoutError);
  });

  it('honours a shorter timeout for one call', async () => {
    bench.pdp.handle(() => undefined);
    expect(await failureOf(bench.client({ timeoutMs: 60_000 }).decide(employee(), { timeoutMs: 200 }))).toMatchObject({ timeoutMs: 200 });
  });

  it('rejects with TransportError when the pdp closes the socket, and never sends the event again', async () => {
    bench.pdp.handle((_, res, req) => void req.socket.destroy());
    const error = await failureOf(bench.client().enforce(employee()));
    expect(error).toBeInstanceOf(TransportError);
    expect((error.cause as Error).message).toBe('fetch failed');
    expect(error.message).toBe(`cannot reach \`${bench.pdp.url}/event\`: other side closed`);
    expect(bench.pdp.seen).toHaveLength(1);
    expect(bench.retries).toEqual([]);
  });

  it('rejects with UnexpectedStatusError on a 500, without repeating it', async () => {
    bench.pdp.handle((_, res) => json(res, 500, { code: 'internal_error', detail: 'something broke' }));
    const error = await failureOf(bench.client().enforce(employee()));
    expect(error).toBeInstanceOf(UnexpectedStatusError);
    expect(error).toMatchObject({ status: 500, problem: { code: 'internal_error' } });
    expect((error.cause as Error).message).toBe('status 500: something broke');
    expect(bench.pdp.seen).toHaveLength(1);
  });

  it('rejects a 403 of a foreign solution as UnexpectedStatusError', async () => {
    bench.pdp.handle((_, res) => json(res, 403, { code: 'insufficient_scope' }));
    expect(await failureOf(bench.client().enforce(employee()))).toMatchObject({ status: 403, code: 'unexpected_status' });
  });

  it.each([
    ['text that is not JSON', '{"eventAllowed": tru', SyntaxError],
    ['a list', '[]', TypeError],
    ['eventAllowed as a string', JSON.stringify({ ...decision(), eventAllowed: 'yes' }), TypeError],
    ['a negative delay', JSON.stringify({ ...decision(), delay: -1 }), TypeError],
    ['two engines', JSON.stringify(decision([{ ...modifier('user', '$', 'delete'), engine: [{ method: 'delete', parameters: [] }, { method: 'hash', parameters: [] }] }])), TypeError],
    ['a parameter without a type', JSON.stringify(decision([{ name: 'u', expression: '$', engine: [{ method: 'replace', parameters: [{ name: 'replaceWith', value: { value: 1 } }] }] }])), TypeError],
  ])('rejects a malformed answer: %s', async (_, body, cause) => {
    bench.pdp.handle((__, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Policy-Revision': '3' });
      res.end(body);
    });
    const error = await failureOf(bench.client().enforce(employee()));
    expect(error).toBeInstanceOf(MalformedDecisionError);
    expect(error.cause).toBeInstanceOf(cause);
  });

  it('rejects a Policy-Revision that is not a revision', async () => {
    bench.pdp.handle(answer(decision(), { 'Policy-Revision': 'latest' }));
    expect(await failureOf(bench.client().decide(employee()))).toBeInstanceOf(MalformedDecisionError);
  });

  it('rejects a decision with an unknown modifier method, a path it cannot apply, or a value of the wrong kind', async () => {
    bench.pdp.handle(answer(decision([modifier('user', '$.name', 'encrypt', { key: 'k' })])));
    const unknown = await failureOf(bench.client().enforce(employee()));
    expect(unknown).toBeInstanceOf(UnsupportedModifierError);
    expect(unknown).toMatchObject({ method: 'encrypt', context: { index: 0, decision: { policyRevision: 3 } } });

    bench.pdp.handle(answer(decision([modifier('user', '$.name[?@ == "Ann"]', 'delete')])));
    expect(await failureOf(bench.client().enforce(employee()))).toBeInstanceOf(JsonPathError);

    bench.pdp.handle(answer(decision([modifier('user', '$.salary', 'append', { suffix: ' EUR' })])));
    expect(await failureOf(bench.client().enforce(employee()))).toBeInstanceOf(ModifierError);
  });
});

describe('failClosed: false', () => {
  const open = () => bench.client({ failClosed: false, timeoutMs: 300 });

  it('lets the event through unchanged when the pdp cannot be reached or does not answer', async () => {
    bench.pdp.handle((_, res, req) => void req.socket.destroy());
    const closed = await open().enforce(employee());
    expect(closed).toMatchObject({ event: employee(), decision: null, delayMs: 0 });
    expect(closed.failedOpen).toBeInstanceOf(TransportError);

    bench.pdp.handle(() => undefined);
    expect((await open().enforce(employee())).failedOpen).toBeInstanceOf(DecisionTimeoutError);
  });

  it('still rejects a denial, an error status, a malformed answer and an unknown modifier', async () => {
    bench.pdp.handle(answer(decision([], { allowed: false })));
    expect(await failureOf(open().enforce(employee()))).toBeInstanceOf(DecisionDeniedError);
    bench.pdp.handle((_, res) => json(res, 500, {}));
    expect(await failureOf(open().enforce(employee()))).toBeInstanceOf(UnexpectedStatusError);
    bench.pdp.handle((_, res) => void res.end('nonsense'));
    expect(await failureOf(open().enforce(employee()))).toBeInstanceOf(MalformedDecisionError);
    bench.pdp.handle(answer(decision([modifier('user', '$', 'encrypt')])));
    expect(await failureOf(open().enforce(employee()))).toBeInstanceOf(UnsupportedModifierError);
    expect(await failureOf(bench.client({ failClosed: false, clientSecret: 'wrong' }).enforce(employee()))).toBeInstanceOf(AuthenticationError);
  });
});
