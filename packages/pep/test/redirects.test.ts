import { CustosClient } from '../src/client';
import { RedirectError } from '../src/errors';
import { event } from '../src/event-builder';
import { DEFAULT_RETRY } from '../src/retry';
import { issueToken } from '../src/token-endpoint';
import { decision, json, TestServer, tokenServer } from './servers';

/**
 * Token and decision requests carry the client secret or a token: a redirect to another origin must neither be
 * followed nor retried, and must say where it pointed. `elsewhere` stands for that origin and records what reached it.
 */
let tokens: Awaited<ReturnType<typeof tokenServer>>;
let pdp: TestServer;
let elsewhere: TestServer;
let redirecting: TestServer;
let status = 307;

beforeEach(async () => {
  status = 307;
  tokens = await tokenServer();
  pdp = await TestServer.start((_, res) => json(res, 200, decision(), { 'Policy-Revision': '3' }));
  elsewhere = await TestServer.start((_, res) => json(res, 200, { access_token: 'stolen', expires_in: 3600, ...decision() }));
  redirecting = await TestServer.start((seen, res) => {
    res.writeHead(status, { Location: `${elsewhere.url}${seen.url}` }).end();
  });
});
afterEach(async () => {
  await Promise.all([tokens.stop(), pdp.stop(), elsewhere.stop(), redirecting.stop()]);
});

const client = (urls: { pdpUrl: string; authUrl: string }) =>
  new CustosClient({ ...urls, clientId: 'pep', clientSecret: 'pep-secret', retry: { baseDelayMs: 1, maxDelayMs: 5 } });
const someEvent = () => event('acme', 'show', { reason: 'review' }, { timestamp: 1763798400000 });

async function rejection(promise: Promise<unknown>): Promise<RedirectError> {
  const error = await promise.then(
    () => undefined,
    (failure: unknown) => failure,
  );
  if (!(error instanceof RedirectError)) throw new Error(`expected a RedirectError, got ${String(error)}`);
  return error;
}

describe('redirects with credentials', () => {
  it.each([301, 302, 303, 307, 308])('the token request refuses a %i, once, and sends the secret nowhere else', async (code) => {
    status = code;
    const error = await rejection(
      issueToken({ authUrl: redirecting.url, clientId: 'pep', clientSecret: 'pep-secret', timeoutMs: 5000, retry: DEFAULT_RETRY, onRetry: () => undefined }),
    );
    expect(error).toMatchObject({ code: 'redirect', status: code, url: `${redirecting.url}/oauth/token`, location: `${elsewhere.url}/oauth/token` });
    expect(error.message).toBe(
      `\`${redirecting.url}/oauth/token\` answered ${code} redirecting to \`${elsewhere.url}/oauth/token\`; the SDK follows no redirects with credentials`,
    );
    expect(redirecting.seen).toHaveLength(1);
    expect(elsewhere.seen).toEqual([]);
  });

  it('a decision request refuses a 307: the token goes nowhere else, and it is not retried', async () => {
    const custos = client({ pdpUrl: redirecting.url, authUrl: tokens.url });
    const error = await rejection(custos.decide(someEvent()));
    expect(error).toMatchObject({ status: 307, url: `${redirecting.url}/event`, location: `${elsewhere.url}/event` });
    expect(redirecting.seen).toHaveLength(1);
    expect(redirecting.seen[0]?.headers.authorization).toBe('Bearer token-1');
    expect(elsewhere.seen).toEqual([]);
  });

  it('batches and AuthZEN evaluations refuse it as well', async () => {
    const custos = client({ pdpUrl: redirecting.url, authUrl: tokens.url });
    await rejection(custos.decideAll([someEvent()]));
    await rejection(custos.evaluation({ subject: { type: 'user', id: 'ann' }, action: { name: 'show' }, resource: { type: 'acme', id: 'r1' } }));
    expect(redirecting.seen.map((seen) => seen.url)).toEqual(['/events', '/access/v1/evaluation']);
    expect(elsewhere.seen).toEqual([]);
  });

  it('fails closed even with failClosed: false (a redirect is a wrong URL, not an outage)', async () => {
    const custos = new CustosClient({ pdpUrl: redirecting.url, authUrl: tokens.url, clientId: 'pep', clientSecret: 'pep-secret', failClosed: false });
    await rejection(custos.enforce(someEvent()));
    expect(elsewhere.seen).toEqual([]);
  });

  it('a 3xx that is no redirect is an unexpected status, as before', async () => {
    pdp.handle((_, res) => void res.writeHead(304).end());
    await expect(client({ pdpUrl: pdp.url, authUrl: tokens.url }).decide(someEvent())).rejects.toMatchObject({ code: 'unexpected_status', status: 304 });
  });
});
