import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { ADMIN_ID, ADMIN_SECRET, call, repoRoot, startStack, TEST_NATS_URL, type RunningService, type Stack } from '@custos/test-kit';
import { event, inhibitAll } from './policies';

const run = promisify(execFile);
const cli = path.join(repoRoot(), 'packages', 'cli', 'bin', 'custos.js');

/**
 * Policy versions (issue 24) end to end: pap on PostgreSQL, two pdp replicas as processes. A deployed policy
 * rolled back to an earlier version is decided by the old text on every replica, from the revision the restore
 * answered.
 */
describe('rollback across replicas', () => {
  let stack: Stack;
  let token: string;
  let configDir: string;

  beforeAll(async () => {
    stack = await startStack({ natsUrl: TEST_NATS_URL, replicas: 2 });
    token = await stack.adminToken();
    configDir = await mkdtemp(path.join(tmpdir(), 'custos-versions-'));
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
    if (configDir) await rm(configDir, { recursive: true, force: true });
  }, 60_000);

  /** `custos <args>` of this worktree's build, logged in as the stack's administrator. */
  const custos = async (...args: string[]): Promise<string> => {
    const env = { ...process.env, CUSTOS_CONFIG_DIR: configDir };
    return (await run('node', [cli, ...args], { env, timeout: 30_000 })).stdout;
  };

  const id = 'urn:policy:acme:rollback';
  const inhibiting = inhibitAll('acme', 'rollback', 'print');
  const allowing = inhibiting.replace('<inhibit reason="rollback"/>', '<allow/>');

  const decide = (pdp: RunningService, minRevision: number) =>
    call('POST', `${pdp.url}/event`, { token, json: event('acme', 'print'), headers: { 'Min-Policy-Revision': String(minRevision) } });

  async function expectEveryReplica(revision: number, allowed: boolean): Promise<void> {
    expect(stack.pdps).toHaveLength(2);
    for (const pdp of stack.pdps) {
      const decided = await decide(pdp, revision);
      expect(decided.status).toBe(200);
      expect(decided.body.eventAllowed).toBe(allowed);
      expect(decided.headers.get('policy-revision')).toBe(String(revision));
    }
  }

  it('decides by the old text on every replica once version 1 is restored', async () => {
    expect(allowing).not.toBe(inhibiting);
    expect((await call('POST', `${stack.pap.url}/ws/policy`, { token, xml: inhibiting })).status).toBe(201);
    const deployed = await call('POST', `${stack.pap.url}/ws/policy/${id}/deploy`, { token });
    await expectEveryReplica(Number(deployed.headers.get('policy-revision')), false);

    const replaced = await call('PUT', `${stack.pap.url}/ws/policy/${id}`, { token, xml: allowing });
    expect(replaced.status).toBe(200);
    await expectEveryReplica(Number(replaced.headers.get('policy-revision')), true);

    const restored = await call('POST', `${stack.pap.url}/ws/policy/${id}/versions/1/restore`, { token });
    expect(restored.status).toBe(200);
    expect(restored.body).toMatchObject({ version: 3, deployed: true, changed: true });
    expect(restored.headers.get('policy-revision')).toBe(String(restored.body.revision));
    await expectEveryReplica(restored.body.revision as number, false);

    const history = await call('GET', `${stack.pap.url}/ws/policy/${id}/versions`, { token });
    expect((history.body.versions as Array<{ number: number; deployed: boolean }>).map(({ number, deployed }) => ({ number, deployed }))).toEqual([
      { number: 1, deployed: false },
      { number: 2, deployed: false },
      { number: 3, deployed: true },
    ]);
  }, 60_000);

  it('shows the history and rolls back again through the CLI, every replica following', async () => {
    await run('bash', ['-c', `printf '%s\\n' "$SECRET" | node "$CLI" login --auth-url "$AUTH" --pap-url "$PAP" --pdp-url "$PDP" --client-id "$ID" --client-secret-stdin`], {
      env: { ...process.env, CUSTOS_CONFIG_DIR: configDir, CLI: cli, SECRET: ADMIN_SECRET, ID: ADMIN_ID, AUTH: stack.auth.url, PAP: stack.pap.url, PDP: stack.pdps[0]!.url },
      timeout: 30_000,
    });
    const listed = (await custos('policy', 'versions', id)).trimEnd().split('\n');
    expect(listed).toHaveLength(3);
    expect(listed[2]).toMatch(new RegExp(`^v3 .* ${ADMIN_ID} .* current, deployed$`));
    const diff = await custos('policy', 'diff', id, '1', '2');
    expect(diff).toContain('-      <then><inhibit reason="rollback"/></then>');
    expect(diff).toContain('+      <then><allow/></then>');
    expect(await custos('policy', 'show-version', id, '2')).toBe(`${allowing}\n`);

    const restored = await custos('policy', 'restore', id, '2');
    const revision = /^restored urn:policy:acme:rollback v2 as v4, deployed \(policy revision (\d+)\)$/.exec(restored.trimEnd());
    expect(revision).not.toBeNull();
    await expectEveryReplica(Number(revision![1]), true);
  }, 60_000);
});
