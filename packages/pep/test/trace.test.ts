import { CustosClient } from '../src/client';
import { ConfigurationError } from '../src/errors';
import { event } from '../src/event-builder';
import type { CustosClientOptions } from '../src/options';
import { decision, json, TestServer, tokenServer } from './servers';

/** The caller's trace context goes with each decision request, as the `traceHeaders` callback gives it at that moment. */
let tokens: Awaited<ReturnType<typeof tokenServer>>;
let pdp: TestServer;

beforeEach(async () => {
  tokens = await tokenServer();
  pdp = await TestServer.start((_, res) => json(res, 200, decision(), { 'Policy-Revision': '3' }));
});
afterEach(async () => {
  await tokens.stop();
  await pdp.stop();
});

const client = (options: Partial<CustosClientOptions> = {}) =>
  new CustosClient({ pdpUrl: pdp.url, authUrl: tokens.url, clientId: 'pep', clientSecret: 'pep-secret', ...options });
const asked = () => event('acme', 'show-employee', { user: 'ann' });
const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

describe('traceHeaders', () => {
  it('sends no trace context without the option', async () => {
    await client().decide(asked());
    expect(pdp.seen[0]?.headers.traceparent).toBeUndefined();
  });

  it('sends traceparent and tracestate as the callback returns them for each request, and nothing else it returns', async () => {
    const parents = [TRACEPARENT, TRACEPARENT.replace('00f067aa0ba902b7', '00f067aa0ba902b8')];
    let call = 0;
    const custos = client({
      traceHeaders: () => ({ traceparent: parents[call++] ?? '', tracestate: 'vendor=1', authorization: 'Bearer stolen', baggage: 'user=ann' }),
    });
    await custos.decide(asked());
    await custos.decide(asked());
    expect(pdp.seen.map((seen) => seen.headers.traceparent)).toEqual(parents);
    expect(pdp.seen[0]?.headers.tracestate).toBe('vendor=1');
    expect(pdp.seen[0]?.headers.authorization).not.toBe('Bearer stolen');
    expect(pdp.seen[0]?.headers.baggage).toBeUndefined();
  });

  it('never fails a decision: a callback that throws or returns nothing sends no trace context', async () => {
    const throwing = await client({ traceHeaders: () => { throw new Error('no tracer'); } }).decide(asked());
    expect(throwing.eventAllowed).toBe(true);
    await client({ traceHeaders: () => undefined }).decide(asked());
    expect(pdp.seen.map((seen) => seen.headers.traceparent)).toEqual([undefined, undefined]);
  });

  it('must be a function', () => {
    expect(() => client({ traceHeaders: 'traceparent' as unknown as () => undefined })).toThrow(ConfigurationError);
    expect(() => client({ traceHeaders: 'traceparent' as unknown as () => undefined })).toThrow('option `traceHeaders` must be a function');
  });
});
