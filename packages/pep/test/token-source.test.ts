import { AuthenticationError, DecisionTimeoutError, TooManyRequestsError, TransportError } from '../src/errors';
import { DEFAULT_RETRY } from '../src/retry';
import { issueToken, type TokenEndpointOptions } from '../src/token-endpoint';
import { TokenSource } from '../src/token-source';
import { json, TestServer, tokenServer } from './servers';

describe('the token source against a real token endpoint', () => {
  let server: Awaited<ReturnType<typeof tokenServer>>;
  let now: number;
  const retries: unknown[] = [];
  const options = (overrides: Partial<TokenEndpointOptions> = {}): TokenEndpointOptions => ({
    authUrl: server.url,
    clientId: 'pep',
    clientSecret: 'pep-secret',
    timeoutMs: 5000,
    retry: { ...DEFAULT_RETRY, baseDelayMs: 1 },
    onRetry: (info) => retries.push(info),
    ...overrides,
  });
  const source = (overrides: Partial<TokenEndpointOptions> = {}) => new TokenSource(() => issueToken(options(overrides)), () => now);

  beforeEach(async () => {
    server = await tokenServer(3600);
    now = 1_000_000;
    retries.length = 0;
  });
  afterEach(() => server.stop());

  it('asks with client credentials for the decide scope', async () => {
    await expect(source().get()).resolves.toBe('token-1');
    const form = new URLSearchParams(server.seen[0]?.body);
    expect(server.seen[0]?.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(Object.fromEntries(form)).toEqual({ grant_type: 'client_credentials', client_id: 'pep', client_secret: 'pep-secret', scope: 'event:decide' });
  });

  it('caches the token, and concurrent callers share one fetch', async () => {
    const tokens = source();
    expect(await Promise.all([tokens.get(), tokens.get(), tokens.get()])).toEqual(['token-1', 'token-1', 'token-1']);
    expect(await tokens.get()).toBe('token-1');
    expect(server.issued).toEqual(['token-1']);
  });

  it('renews a minute before expiry, in the background, not earlier', async () => {
    const tokens = source();
    await tokens.get();
    now += 3_540_000 - 1; // one millisecond before the renewal point (3600 s - 60 s)
    expect(await tokens.get()).toBe('token-1');
    expect(server.seen).toHaveLength(1);
    now += 1;
    // Still valid: served at once while the renewal runs.
    expect(await tokens.get()).toBe('token-1');
    await waitUntil(async () => (await tokens.get()) === 'token-2');
    expect(server.issued).toEqual(['token-1', 'token-2']);
  });

  it('waits for a new token once the old one expired', async () => {
    const tokens = source();
    await tokens.get();
    now += 3_600_000;
    expect(await tokens.get()).toBe('token-2');
  });

  it('renews short-lived tokens at half their life', async () => {
    await server.stop();
    server = await tokenServer(10);
    const tokens = source();
    await tokens.get();
    now += 4_999;
    expect(await tokens.get()).toBe('token-1');
    expect(server.seen).toHaveLength(1);
    now += 1;
    await waitUntil(async () => (await tokens.get()) === 'token-2');
  });

  it('keeps using a still valid token while its renewal fails, and not once it expired', async () => {
    const tokens = source({ retry: { ...DEFAULT_RETRY, attempts: 1 } });
    await tokens.get();
    server.handle((_, res) => json(res, 500, { error: 'server_error' }));
    now += 3_550_000;
    expect(await tokens.get()).toBe('token-1');
    await waitUntil(() => server.seen.length === 2);
    expect(await tokens.get()).toBe('token-1');
    now += 50_000;
    await expect(tokens.get()).rejects.toMatchObject({ status: 500 });
  });

  it('drops a token the pdp refused, but not a newer one', async () => {
    const tokens = source();
    await tokens.get();
    tokens.invalidate('token-1');
    expect(await tokens.get()).toBe('token-2');
    tokens.invalidate('token-1');
    expect(await tokens.get()).toBe('token-2');
  });

  it('retries a token endpoint that fails with 5xx or 429, and reports each retry', async () => {
    let calls = 0;
    server.handle((seen, res) => {
      calls += 1;
      if (calls === 1) json(res, 503, { error: 'temporarily_unavailable' });
      else if (calls === 2) json(res, 429, { error: 'slow_down' }, { 'Retry-After': '0' });
      else json(res, 200, { access_token: 'late', expires_in: 60 });
    });
    expect(await source().get()).toBe('late');
    expect(retries).toEqual([
      expect.objectContaining({ operation: 'token', attempt: 1 }),
      expect.objectContaining({ operation: 'token', attempt: 2, delayMs: 0 }),
    ]);
  });

  describe('a 429 of the token endpoint, as a 429 of the pdp', () => {
    const tooMany = (retryAfter: string | undefined) =>
      server.handle((_, res) =>
        json(res, 429, { error: 'too_many_requests', error_description: 'too many failed attempts; retry in 30 s' }, retryAfter === undefined ? {} : { 'Retry-After': retryAfter }),
      );

    it('rejects at once with TooManyRequestsError when Retry-After ends after the deadline, uncapped by maxDelayMs', async () => {
      tooMany('30');
      const error = await source({ timeoutMs: 5000 }).get().catch((e: unknown) => e);
      // The old capped path would have waited maxDelayMs (1 s) and asked twice more.
      expect(error).toBeInstanceOf(TooManyRequestsError);
      expect(error).toMatchObject({
        status: 429,
        retryAfterMs: 30_000,
        url: `${server.url}/oauth/token`,
        problem: { code: 'too_many_requests', detail: 'too many failed attempts; retry in 30 s' },
      });
      expect((error as Error).message).toBe(`\`${server.url}/oauth/token\` refused the request for now (429: too many failed attempts; retry in 30 s); retry after 30000 ms`);
      expect(server.seen).toHaveLength(1);
      expect(retries).toEqual([]);
    });

    it('waits out a Retry-After that fits once, in full; a second 429 rejects even with attempts left', async () => {
      tooMany('1');
      const error = await source({ retry: { attempts: 5, baseDelayMs: 1, maxDelayMs: 5 } }).get().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TooManyRequestsError);
      expect(server.seen).toHaveLength(2);
      // The whole second the endpoint asked for, not maxDelayMs' 5 ms.
      expect(retries).toEqual([expect.objectContaining({ operation: 'token', attempt: 1, delayMs: 1000, error: expect.any(TooManyRequestsError) as unknown })]);
    });

    it('takes the usual backoff without a Retry-After, and the next answer counts', async () => {
      let calls = 0;
      server.handle((_, res) => {
        calls += 1;
        if (calls === 1) json(res, 429, { error: 'too_many_requests' });
        else json(res, 200, { access_token: 'after-429', expires_in: 60 });
      });
      expect(await source().get()).toBe('after-429');
      expect(retries).toEqual([expect.objectContaining({ operation: 'token', attempt: 1, error: expect.any(TooManyRequestsError) as unknown })]);
    });

    it('is not retried with `attempts: 1`', async () => {
      tooMany('0');
      expect(await source({ retry: { ...DEFAULT_RETRY, attempts: 1 } }).get().catch((e: unknown) => e)).toBeInstanceOf(TooManyRequestsError);
      expect(server.seen).toHaveLength(1);
    });
  });

  it('does not retry a refusal of the credentials', async () => {
    const error = await source({ clientSecret: 'wrong' }).get().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error).toMatchObject({ status: 401, oauthError: 'invalid_client' });
    expect((error as Error).message).toBe('the token endpoint refused the client (401 `invalid_client`): unknown client or wrong secret');
    expect(server.seen).toHaveLength(1);
  });

  it('refuses an answer without an access token', async () => {
    server.handle((_, res) => json(res, 200, { token_type: 'Bearer' }));
    const error = await source().get().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect((error as Error).message).toBe('the token endpoint answered without an access token');
  });

  it('gives up after the attempts with a transport error when nobody listens', async () => {
    const url = server.url;
    await server.stop();
    const error = await source({ authUrl: url }).get().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransportError);
    expect(retries).toHaveLength(DEFAULT_RETRY.attempts - 1);
    server = await tokenServer();
  });

  it('times out against an endpoint that never answers', async () => {
    server.handle(() => undefined);
    const error = await source({ timeoutMs: 200 }).get().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DecisionTimeoutError);
    expect((error as Error).cause).toBeInstanceOf(Error);
  });
});

describe('a token server that starts late', () => {
  it('is reached by the retry after a refused connection', async () => {
    const placeholder = await TestServer.start(() => undefined);
    const url = placeholder.url;
    await placeholder.stop();
    const late = new TestServer((_, res) => json(res, 200, { access_token: 'after-refusal', expires_in: 60 }));
    const tokens = new TokenSource(() =>
      issueToken({
        authUrl: url,
        clientId: 'pep',
        clientSecret: 'pep-secret',
        timeoutMs: 5000,
        retry: { attempts: 2, baseDelayMs: 1, maxDelayMs: 1 },
        // The server begins to listen between the refused attempt and the retry.
        onRetry: () => late.listenNow(Number(new URL(url).port)),
      }),
    );
    await expect(tokens.get()).resolves.toBe('after-refusal');
    expect(late.seen).toHaveLength(1);
    await late.stop();
  });
});

/** Polls `check` until it holds (the background renewal has no promise to await). */
async function waitUntil(check: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not reached');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
