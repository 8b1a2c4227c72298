import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { clientToken, freePort, repoRoot, TEST_NATS_URL, TEST_SERVER_URL, waitFor } from '@custos/test-kit';
import { expectWalkthroughOutput, walkthroughScript } from './readme-walkthrough';

const run = promisify(execFile);

interface Embedded {
  child: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
}

/**
 * `npm start` (scripts/start-stack.mjs) as on a machine without PostgreSQL and NATS: DATABASE_URL and NATS_URL are
 * unset, and the probes of the standard local ports are pointed at ports nothing listens on (CUSTOS_PROBE_*, an
 * override that exists only for this), since this machine runs both on the standard ports.
 */
async function startWithoutServers(env: Record<string, string>): Promise<Embedded> {
  const inherited = { ...process.env };
  delete inherited.DATABASE_URL;
  delete inherited.NATS_URL;
  return startScript([], {
    ...inherited,
    CUSTOS_PROBE_POSTGRES: `127.0.0.1:${await freePort()}`,
    CUSTOS_PROBE_NATS: `127.0.0.1:${await freePort()}`,
    LOG_LEVEL: 'warn',
    ...env,
  });
}

/** scripts/start-stack.mjs with these arguments and exactly this environment, until embedded Custos is ready. */
async function startScript(args: string[], env: NodeJS.ProcessEnv): Promise<Embedded> {
  const child = spawn(process.execPath, [path.join(repoRoot(), 'scripts', 'start-stack.mjs'), ...args], {
    cwd: repoRoot(),
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const started = { child, output: () => output, exited };
  const exitedEarly = exited.then((code) => {
    throw new Error(`embedded Custos exited with ${code} while starting:\n${output.slice(-4000)}`);
  });
  await Promise.race([
    exitedEarly,
    waitFor(() => output.includes('custos embedded ready'), { timeoutMs: 150_000, intervalMs: 100, what: `embedded Custos to be ready:\n${output}` }),
  ]);
  exitedEarly.catch(() => undefined);
  return started;
}

async function stop(embedded: Embedded | undefined): Promise<number | null> {
  if (!embedded) return null;
  if (embedded.child.exitCode === null && embedded.child.signalCode === null) embedded.child.kill('SIGTERM');
  return embedded.exited;
}

describe('npm start without PostgreSQL and NATS (embedded mode)', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'custos-embedded-'));
  let env: Record<string, string>;
  let urls: { AUTH: string; PAP: string; PDP: string };
  let embedded: Embedded | undefined;

  beforeAll(async () => {
    const [auth, pap, pdp] = [await freePort(), await freePort(), await freePort()];
    env = {
      CUSTOS_DATA_DIR: dataDir,
      AUTH_PORT: String(auth),
      PAP_PORT: String(pap),
      PDP_PORT: String(pdp),
      // The README starts Custos with these credentials.
      BOOTSTRAP_CLIENT_ID: 'admin',
      BOOTSTRAP_CLIENT_SECRET: 'change-me-now-0123',
    };
    urls = { AUTH: `http://127.0.0.1:${auth}`, PAP: `http://127.0.0.1:${pap}`, PDP: `http://127.0.0.1:${pdp}` };
    embedded = await startWithoutServers(env);
  }, 180_000);

  afterAll(async () => {
    await stop(embedded);
    rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  it('says in one line that it runs embedded', () => {
    const said = embedded?.output().split('\n').filter((line) => line.includes('running Custos embedded')) ?? [];
    expect(said).toHaveLength(1);
    expect(said[0]).toContain('DATABASE_URL and NATS_URL are unset');
  });

  it('runs the README walk-through verbatim', async () => {
    const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', walkthroughScript()], {
      env: { ...process.env, ...urls },
      timeout: 60_000,
    });
    expectWalkthroughOutput(stdout);
    // Propagation went through pap's outbox, in process.
    const ready = (await (await fetch(`${urls.PAP}/health/ready`)).json()) as { nats: string; revision: number; outboxBacklog: number };
    expect(ready).toMatchObject({ nats: 'in-process', revision: 2, outboxBacklog: 0 });
  }, 90_000);

  it('keeps clients, policies and revisions across a restart', async () => {
    expect(await stop(embedded)).toBe(0);
    embedded = await startWithoutServers(env);

    // The bootstrap client was made before the restart; its secret still works.
    const token = await clientToken(urls.AUTH, 'admin', 'change-me-now-0123');
    const policy = await fetch(`${urls.PAP}/ws/policy/urn:policy:acme:mask-names`, { headers: { Authorization: `Bearer ${token}` } });
    expect(policy.status).toBe(200);
    expect(await policy.text()).toContain('Mallory is never shown');
    // Deploy (1) and revoke (2) were the walk-through's changes; the pdp starts from the stored revision.
    const status = await waitFor(
      async () => {
        const body = (await (await fetch(`${urls.PDP}/status`)).json()) as { ready: boolean; revision: number; policies: number };
        return body.ready ? body : undefined;
      },
      { what: 'the pdp to load its snapshot' },
    );
    expect(status).toMatchObject({ revision: 2, policies: 0 });

    // And it keeps following pap: a deploy after the restart is revision 3 and decides at once.
    const deploy = await fetch(`${urls.PAP}/ws/policy/urn:policy:acme:mask-names/deploy`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(deploy.status).toBe(200);
    expect(deploy.headers.get('policy-revision')).toBe('3');
    const decision = await fetch(`${urls.PDP}/event`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', 'Min-Policy-Revision': '3' },
      body: JSON.stringify({
        actionId: { scope: 'acme', action: 'show-employee' },
        timestamp: 1763798400000,
        parameters: [
          { name: 'user', value: { value: { id: 'u2', name: { firstName: 'Mallory' } }, type: 'com.acme.User', isComplex: true } },
        ],
      }),
    });
    expect(decision.status).toBe(200);
    expect(decision.headers.get('policy-revision')).toBe('3');
    expect(await decision.json()).toMatchObject({ eventAllowed: false });
  }, 240_000);
});

describe('npm run start:embedded where PostgreSQL and NATS run', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'custos-embedded-forced-'));
  let embedded: Embedded | undefined;

  afterAll(async () => {
    await stop(embedded);
    rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  it('runs embedded all the same, even with DATABASE_URL and NATS_URL set', async () => {
    const pap = await freePort();
    embedded = await startScript(['--embedded'], {
      ...process.env,
      DATABASE_URL: TEST_SERVER_URL,
      NATS_URL: TEST_NATS_URL,
      CUSTOS_DATA_DIR: dataDir,
      AUTH_PORT: String(await freePort()),
      PAP_PORT: String(pap),
      PDP_PORT: String(await freePort()),
      LOG_LEVEL: 'warn',
    });
    expect(embedded.output()).toContain(`running Custos embedded in one process (PostgreSQL from PGlite in ${dataDir}`);
    const ready = (await (await fetch(`http://127.0.0.1:${pap}/health/ready`)).json()) as { ready: boolean; nats: string };
    expect(ready).toMatchObject({ ready: true, nats: 'in-process' });
    expect(await stop(embedded)).toBe(0);
  }, 180_000);
});
