import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { call, clientToken, freePort, waitFor } from '@custos/test-kit';

const NS = [
  'xmlns="http://www.mydata-control.de/4.0/mydataLanguage"',
  'xmlns:constant="http://www.mydata-control.de/4.0/constant"',
].join(' ');
const LIMIT = 5;

const limitPolicy = (id: string) => `<policy ${NS} id="${id}">
  <mechanism event="urn:action:acme:download">
    <if><greater><count><eventOccurrence event="urn:action:acme:download"/><when fixedTime="always"/></count><constant:number value="${LIMIT}"/></greater>
      <then><inhibit reason="limit reached"/></then></if>
    <else><allow/></else>
  </mechanism>
</policy>`;

const plainPolicy = (id: string) => `<policy ${NS} id="${id}">
  <mechanism event="urn:action:acme:other"><if><equals><constant:string value="a"/><constant:string value="a"/></equals><then><allow/></then></if></mechanism>
</policy>`;

const download = { actionId: { scope: 'acme', action: 'download' }, timestamp: 1763798400000, parameters: [] };

/**
 * Embedded mode as its own process (built `dist/main.js`; PGlite loads its WebAssembly by dynamic import, which
 * jest's module sandbox does not allow): every service on one PGlite session through one pool of one connection. Under
 * load from all three services at once, each transaction must still run alone on that session: a history limit
 * allows exactly its count, and pap's revisions stay gap-free.
 */
describe('embedded Custos under load from every service at once', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'custos-embedded-unit-'));
  let child: ChildProcess | undefined;
  let exited: Promise<number | null>;
  let output = '';
  let custos: { urls: { auth: string; pap: string; pdp: string } };
  let token: string;

  beforeAll(async () => {
    const [auth, pap, pdp] = [await freePort(), await freePort(), await freePort()];
    child = spawn(process.execPath, [path.join(__dirname, '..', 'dist', 'main.js')], {
      env: {
        PATH: process.env.PATH,
        CUSTOS_DATA_DIR: dataDir,
        AUTH_PORT: String(auth),
        PAP_PORT: String(pap),
        PDP_PORT: String(pdp),
        BOOTSTRAP_CLIENT_ID: 'admin',
        BOOTSTRAP_CLIENT_SECRET: 'embedded-admin-secret-0123',
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const running = child;
    exited = new Promise((resolve) => running.once('exit', (code) => resolve(code)));
    await waitFor(
      () => {
        if (running.exitCode !== null) throw new Error(`embedded Custos exited with ${running.exitCode}: ${output}`);
        return output.includes('custos embedded ready');
      },
      { timeoutMs: 110_000, intervalMs: 100, what: 'embedded Custos to be ready' },
    );
    custos = { urls: { auth: `http://127.0.0.1:${auth}`, pap: `http://127.0.0.1:${pap}`, pdp: `http://127.0.0.1:${pdp}` } };
    token = await clientToken(custos.urls.auth, 'admin', 'embedded-admin-secret-0123');
  }, 120_000);

  afterAll(async () => {
    if (child && child.exitCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  it('keeps transactions apart on the one connection', async () => {
    const pap = (method: string, route: string, xml?: string) => call(method, `${custos.urls.pap}${route}`, { token, ...(xml ? { xml } : {}) });
    expect((await pap('POST', '/ws/policy', limitPolicy('urn:policy:acme:limit'))).status).toBe(201);
    const deployed = await pap('POST', '/ws/policy/urn:policy:acme:limit/deploy');
    const revision = Number(deployed.headers.get('policy-revision'));

    const decisions = Array.from({ length: 30 }, () =>
      call('POST', `${custos.urls.pdp}/event`, { token, json: download, headers: { 'Min-Policy-Revision': String(revision) } }),
    );
    const writes = Array.from({ length: 8 }, async (_, i) => {
      const id = `urn:policy:acme:extra-${i}`;
      const added = await pap('POST', '/ws/policy', plainPolicy(id));
      const deploy = await pap('POST', `/ws/policy/${id}/deploy`);
      return [added.status, deploy.status, Number(deploy.headers.get('policy-revision'))] as const;
    });
    const tokens = Array.from({ length: 8 }, () => clientToken(custos.urls.auth, 'admin', 'embedded-admin-secret-0123'));
    const [answers, written, minted] = await Promise.all([Promise.all(decisions), Promise.all(writes), Promise.all(tokens)]);

    expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => 200));
    expect(answers.filter((answer) => answer.body.eventAllowed === true)).toHaveLength(LIMIT);
    expect(written.map(([added, deploy]) => [added, deploy])).toEqual(written.map(() => [201, 200]));
    // Each deploy took the next revision after the limit policy's: no revision lost or repeated.
    expect(written.map(([, , r]) => r).sort((a, b) => a - b)).toEqual(written.map((_, i) => revision + 1 + i));
    expect(minted.every((minted) => minted.length > 0)).toBe(true);
  }, 120_000);

  it('stops cleanly on SIGTERM', async () => {
    child?.kill('SIGTERM');
    expect(await exited).toBe(0);
  }, 60_000);
});
