import { readFile, stat } from 'node:fs/promises';
import { sessionPath } from '../src/remote/config-store';
import { closedPort, startServer, type TestServer } from './remote-support/http-server';
import { runCli, tempConfig } from './remote-support/run-cli';

const SECRET = 'the-secret-0123456789';

describe('custos login and logout', () => {
  let auth: TestServer;
  let config: Awaited<ReturnType<typeof tempConfig>>;

  beforeEach(async () => {
    config = await tempConfig();
    auth = await startServer((request) => {
      const form = new URLSearchParams(request.body);
      if (form.get('client_secret') !== SECRET) {
        return { status: 401, json: { error: 'invalid_client', error_description: 'client authentication failed' } };
      }
      return { json: { access_token: 'issued-token', token_type: 'Bearer', expires_in: 3600, scope: form.get('scope') ?? 'policy:read policy:write' } };
    });
  });

  afterEach(async () => {
    await auth.close();
    await config.cleanup();
  });

  it('reads the secret from stdin, caches token, expiry and URLs 0600, and never the secret', async () => {
    const now = Date.UTC(2026, 5, 1, 8);
    const run = await runCli(
      ['login', '--auth-url', `${auth.url}/`, '--pap-url', 'http://pap.example:81', '--pdp-url', 'http://pdp.example:80', '--client-id', 'admin', '--client-secret-stdin'],
      { env: config.env, stdin: `${SECRET}\n`, now },
    );
    expect(run).toMatchObject({ code: 0, err: '' });
    expect(run.out).toBe(
      `logged in as \`admin\` until 2026-06-01T09:00:00.000Z (scopes: policy:read policy:write)\ntoken cached in ${sessionPath(config.env)}\n`,
    );
    expect(auth.requests).toHaveLength(1);
    const request = auth.requests[0];
    expect(request?.url).toBe('/oauth/token');
    expect(request?.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(Object.fromEntries(new URLSearchParams(request?.body))).toEqual({ grant_type: 'client_credentials', client_id: 'admin', client_secret: SECRET });

    const file = sessionPath(config.env);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const text = await readFile(file, 'utf8');
    expect(text).not.toContain(SECRET);
    expect(JSON.parse(text)).toEqual({
      authUrl: auth.url,
      papUrl: 'http://pap.example:81',
      pdpUrl: 'http://pdp.example:80',
      clientId: 'admin',
      accessToken: 'issued-token',
      expiresAt: now + 3_600_000,
      scope: 'policy:read policy:write',
    });
  });

  it('refuses a 307 from the auth URL to another origin: the secret goes nowhere else, nothing is cached', async () => {
    const redirecting = await startServer(() => ({ status: 307, headers: { Location: `${auth.url}/oauth/token` } }));
    try {
      const run = await runCli(['login', '--auth-url', redirecting.url, '--client-id', 'admin', '--client-secret-stdin'], { env: config.env, stdin: `${SECRET}\n` });
      expect(run.code).toBe(2);
      expect(run.err).toContain(`answered 307 redirecting to \`${auth.url}/oauth/token\``);
      expect(redirecting.requests).toHaveLength(1);
      expect(auth.requests).toEqual([]);
      await expect(stat(sessionPath(config.env))).rejects.toThrow(/ENOENT/);
    } finally {
      await redirecting.close();
    }
  });

  it('takes everything from the environment, and asks for fewer scopes when told', async () => {
    const env = { ...config.env, CUSTOS_AUTH_URL: auth.url, CUSTOS_CLIENT_ID: 'env-client', CUSTOS_CLIENT_SECRET: SECRET };
    const run = await runCli(['login', '--scope', 'policy:read'], { env });
    expect(run.code).toBe(0);
    expect(new URLSearchParams(auth.requests[0]?.body).get('client_id')).toBe('env-client');
    expect(new URLSearchParams(auth.requests[0]?.body).get('scope')).toBe('policy:read');
    const cached = JSON.parse(await readFile(sessionPath(config.env), 'utf8')) as Record<string, unknown>;
    expect(cached).toMatchObject({ papUrl: 'http://localhost:8081', pdpUrl: 'http://localhost:8080', scope: 'policy:read' });
  });

  it('refuses two ways of giving the secret, no secret, no client id and a bad URL, without asking auth', async () => {
    const base = ['login', '--auth-url', auth.url, '--client-id', 'admin'];
    const both = await runCli([...base, '--client-secret', SECRET, '--client-secret-stdin'], { env: config.env, stdin: SECRET });
    expect(both).toMatchObject({ code: 2, err: 'error: give the client secret either with --client-secret or with --client-secret-stdin, not both\n' });
    const none = await runCli(base, { env: config.env });
    expect(none).toMatchObject({ code: 2, err: 'error: no client secret; use --client-secret-stdin, --client-secret or CUSTOS_CLIENT_SECRET\n' });
    const noId = await runCli(['login', '--auth-url', auth.url, '--client-secret', SECRET], { env: config.env });
    expect(noId).toMatchObject({ code: 2, err: 'error: no client id; use --client-id or CUSTOS_CLIENT_ID\n' });
    const badUrl = await runCli([...base, '--client-secret', SECRET, '--pap-url', 'ftp://x'], { env: config.env });
    expect(badUrl).toMatchObject({ code: 2, err: 'error: --pap-url: `ftp://x` is not an http or https URL\n' });
    expect(auth.requests).toHaveLength(0);
  });

  it('reports a wrong secret as auth refused it (exit 1) and caches nothing', async () => {
    const run = await runCli(['login', '--auth-url', auth.url, '--client-id', 'admin', '--client-secret-stdin'], { env: config.env, stdin: 'wrong' });
    expect(run).toMatchObject({ code: 1, out: '', err: 'login refused by auth (invalid_client): client authentication failed\n' });
    await expect(stat(sessionPath(config.env))).rejects.toThrow(/ENOENT/);
  });

  it('says in one sentence that auth cannot be reached (exit 2)', async () => {
    const port = await closedPort();
    const run = await runCli(['login', '--auth-url', `http://127.0.0.1:${port}`, '--client-id', 'admin', '--client-secret', SECRET], { env: config.env });
    expect(run).toMatchObject({ code: 2, err: `error: cannot reach auth at http://127.0.0.1:${port}: connection refused\n` });
  });

  it('forgets the token on logout, and says so when there was none', async () => {
    await runCli(['login', '--auth-url', auth.url, '--client-id', 'admin', '--client-secret', SECRET], { env: config.env });
    expect(await runCli(['logout'], { env: config.env })).toMatchObject({ code: 0, out: 'logged out\n' });
    await expect(stat(sessionPath(config.env))).rejects.toThrow(/ENOENT/);
    expect(await runCli(['logout'], { env: config.env })).toMatchObject({ code: 0, out: 'not logged in\n' });
  });

  it('sends the other commands back to login when the cached token expired (exit 2)', async () => {
    const now = Date.UTC(2026, 5, 1, 8);
    await runCli(['login', '--auth-url', auth.url, '--client-id', 'admin', '--client-secret', SECRET], { env: config.env, now });
    const later = await runCli(['policy', 'list'], { env: config.env, now: now + 3_600_000 });
    expect(later).toMatchObject({ code: 2, out: '', err: 'error: the token of `admin` expired at 2026-06-01T09:00:00.000Z; run `custos login` again\n' });
    const never = await runCli(['policy', 'list'], { env: { CUSTOS_CONFIG_DIR: `${config.dir}-nobody` } });
    expect(never).toMatchObject({ code: 2, err: 'error: not logged in; run `custos login` first\n' });
  });
});
