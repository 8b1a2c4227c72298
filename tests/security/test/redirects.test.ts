import { execFile } from 'node:child_process';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CustosClient, RedirectError, event } from '@custos/pep';
import { ADMIN_ID, ADMIN_SECRET, createTestDatabase, repoRoot, startService, type RunningService, type TestDatabase } from '@custos/test-kit';

/**
 * No credentials across a redirect (issue 20, item 5): the `custos` CLI (a real process) and the PEP SDK send the
 * client secret to auth and tokens to pap and the pdp, and refuse to follow a redirect from any of them. The
 * redirecting server answers every request with a 307 to `elsewhere`, another origin, which records whatever
 * reaches it; a real auth issues the token the decision requests carry.
 */
interface Recorder {
  url: string;
  requests: Array<{ method: string; url: string; authorization: string | undefined; body: string }>;
  server: Server;
}

async function recorder(answer: (req: { url: string }, res: ServerResponse) => void): Promise<Recorder> {
  const requests: Recorder['requests'] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      requests.push({ method: req.method ?? '', url: req.url ?? '', authorization: req.headers.authorization, body: Buffer.concat(chunks).toString('utf8') });
      answer({ url: req.url ?? '' }, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests, server };
}

const cli = path.join(repoRoot(), 'packages', 'cli', 'bin', 'custos.js');
let database: TestDatabase;
let auth: RunningService;
let elsewhere: Recorder;
let redirecting: Recorder;
let configDir: string;

beforeAll(async () => {
  database = await createTestDatabase('custos_security');
  auth = await startService('auth-service', { DATABASE_URL: database.url, BOOTSTRAP_CLIENT_ID: ADMIN_ID, BOOTSTRAP_CLIENT_SECRET: ADMIN_SECRET });
  // If anything followed the redirect it would get an answer here, as a token endpoint or a pdp would give it.
  elsewhere = await recorder((_, res) => res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"access_token":"x","expires_in":3600}'));
  redirecting = await recorder((req, res) => res.writeHead(307, { Location: `${elsewhere.url}${req.url}` }).end());
  configDir = await mkdtemp(path.join(tmpdir(), 'custos-redirect-'));
}, 120_000);

afterAll(async () => {
  await Promise.all([elsewhere, redirecting].filter(Boolean).map((r) => new Promise<void>((resolve) => r.server.close(() => resolve()))));
  await auth?.stop();
  await database?.drop();
  if (configDir) await rm(configDir, { recursive: true, force: true });
}, 60_000);

beforeEach(() => {
  elsewhere.requests.length = 0;
  redirecting.requests.length = 0;
});

function custos(args: string[], stdin?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [cli, ...args], { env: { ...process.env, CUSTOS_CONFIG_DIR: configDir }, timeout: 30_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
    child.stdin?.end(stdin ?? '');
  });
}

describe('the custos CLI', () => {
  it('login: a 307 from the auth URL to another origin is refused, naming it; the secret goes nowhere else', async () => {
    const run = await custos(['login', '--auth-url', redirecting.url, '--client-id', ADMIN_ID, '--client-secret-stdin'], `${ADMIN_SECRET}\n`);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`auth at ${redirecting.url} answered 307 redirecting to \`${elsewhere.url}/oauth/token\``);
    expect(redirecting.requests).toHaveLength(1);
    expect(redirecting.requests[0]?.body).toContain('client_secret=');
    expect(elsewhere.requests).toEqual([]);
    await expect(stat(path.join(configDir, 'session.json'))).rejects.toThrow(/ENOENT/);
  });

  it('decide and management calls: a 307 is refused; the token goes nowhere else', async () => {
    const login = await custos(
      ['login', '--auth-url', auth.url, '--pap-url', redirecting.url, '--pdp-url', redirecting.url, '--client-id', ADMIN_ID, '--client-secret-stdin'],
      `${ADMIN_SECRET}\n`,
    );
    expect(login).toMatchObject({ code: 0, stderr: '' });
    const eventFile = path.join(configDir, 'event.json');
    await writeFile(eventFile, JSON.stringify(event('acme', 'show', {}, { timestamp: 1763798400000 })));

    const decided = await custos(['decide', eventFile]);
    expect(decided.code).toBe(2);
    expect(decided.stderr).toContain(`pdp at ${redirecting.url} answered 307 redirecting to \`${elsewhere.url}/event\``);
    const listed = await custos(['policy', 'list']);
    expect(listed.code).toBe(2);
    expect(listed.stderr).toContain(`pap at ${redirecting.url} answered 307 redirecting to \`${elsewhere.url}/`);
    expect(redirecting.requests.map((request) => request.authorization?.startsWith('Bearer '))).toEqual([true, true]);
    expect(elsewhere.requests).toEqual([]);
  });
});

describe('the PEP SDK', () => {
  const someEvent = () => event('acme', 'show', { reason: 'review' }, { timestamp: 1763798400000 });

  it('token request: a 307 from auth to another origin is a RedirectError; the secret goes nowhere else', async () => {
    const client = new CustosClient({ pdpUrl: redirecting.url, authUrl: redirecting.url, clientId: ADMIN_ID, clientSecret: ADMIN_SECRET });
    const error: unknown = await client.decide(someEvent()).catch((failure: unknown) => failure);
    expect(error).toBeInstanceOf(RedirectError);
    expect(error).toMatchObject({ status: 307, url: `${redirecting.url}/oauth/token`, location: `${elsewhere.url}/oauth/token` });
    expect(redirecting.requests.map((request) => request.url)).toEqual(['/oauth/token']);
    expect(elsewhere.requests).toEqual([]);
  });

  it('decision requests: a 307 from the pdp is a RedirectError, also when failing open; the token goes nowhere else', async () => {
    for (const failClosed of [true, false]) {
      const client = new CustosClient({ pdpUrl: redirecting.url, authUrl: auth.url, clientId: ADMIN_ID, clientSecret: ADMIN_SECRET, failClosed });
      const error: unknown = await client.enforce(someEvent()).catch((failure: unknown) => failure);
      expect(error).toBeInstanceOf(RedirectError);
      expect((error as RedirectError).message).toBe(
        `\`${redirecting.url}/event\` answered 307 redirecting to \`${elsewhere.url}/event\`; the SDK follows no redirects with credentials`,
      );
    }
    expect(redirecting.requests).toHaveLength(2);
    expect(redirecting.requests.every((request) => request.authorization?.startsWith('Bearer '))).toBe(true);
    expect(elsewhere.requests).toEqual([]);
  });
});
