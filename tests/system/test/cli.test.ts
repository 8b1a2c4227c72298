import { execFile } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { call, freePort, repoRoot, startStack, TEST_NATS_URL, type Stack } from '@custos/test-kit';
import { inhibitAll } from './policies';

const run = promisify(execFile);
const root = repoRoot();
const cli = path.join(root, 'packages', 'cli', 'bin', 'custos.js');

/** The shell block of docs/cli.md's walk-through, exactly as a reader copies it. */
function cliWalkthrough(): string {
  const docs = readFileSync(path.join(root, 'docs', 'cli.md'), 'utf8');
  const section = /<!-- cli-walkthrough:start -->\n```bash\n([\s\S]*?)```\n<!-- cli-walkthrough:end -->/.exec(docs);
  if (!section?.[1]) throw new Error('docs/cli.md has no cli walk-through section');
  return section[1];
}

/**
 * The docs write `npx custos …`. Here `npx custos` runs this worktree's build directly (`node
 * packages/cli/bin/custos.js`), so the test exercises exactly the code under test whatever npx would resolve,
 * without npx's start-up cost on every line; any other npx call goes to the real npx.
 */
const NPX_ALIAS = `npx() { if [ "$1" = custos ]; then shift; node "$CUSTOS_CLI" "$@"; else command npx "$@"; fi; }\n`;

/** The pretty-printed JSON objects of an output: from a line `{` to the next line `}`, both at the margin. */
function jsonObjects(output: string): Array<Record<string, unknown>> {
  const objects: Array<Record<string, unknown>> = [];
  let current: string[] | undefined;
  for (const line of output.split('\n')) {
    if (current === undefined && line === '{') current = [line];
    else if (current !== undefined) {
      current.push(line);
      if (line === '}') {
        objects.push(JSON.parse(current.join('\n')) as Record<string, unknown>);
        current = undefined;
      }
    }
  }
  return objects;
}

describe('the custos CLI walk-through of docs/cli.md', () => {
  let stack: Stack;
  let scratch: string;
  let configDir: string;

  beforeAll(async () => {
    if (!existsSync(path.join(root, 'packages', 'cli', 'dist', 'index.js'))) {
      throw new Error('packages/cli/dist is missing; run the build first');
    }
    scratch = await mkdtemp(path.join(tmpdir(), 'custos-cli-'));
    // Not created yet: the CLI makes it, with the permissions asserted below.
    configDir = path.join(scratch, 'config', 'custos');
    // The walk-through starts Custos with these credentials.
    stack = await startStack({ natsUrl: TEST_NATS_URL, replicas: 1, admin: { id: 'admin', secret: 'change-me-now-0123' } });
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
    if (scratch) await rm(scratch, { recursive: true, force: true });
  }, 60_000);

  it('works verbatim and shows what the docs say', async () => {
    const env = {
      ...process.env,
      AUTH: stack.auth.url,
      PAP: stack.pap.url,
      PDP: stack.pdps[0]?.url ?? '',
      CUSTOS_CONFIG_DIR: configDir,
      CUSTOS_CLI: cli,
    };
    const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', NPX_ALIAS + cliWalkthrough()], { cwd: root, env, timeout: 90_000 });
    const lines = stdout.split('\n');
    if (process.env.SHOW_CLI_OUTPUT) process.stderr.write(stdout);
    const has = (line: string) => expect(lines).toContain(line);

    // 1–3: login, component, policy.
    expect(lines[0]).toMatch(/^logged in as `admin` until \d{4}-\d\d-\d\dT/);
    has(`token cached in ${path.join(configDir, 'session.json')}`);
    expect(lines.some((line) => line.startsWith('registered urn:component:acme:pep:hr-portal'))).toBe(true);
    expect(lines.some((line) => /^PEP {2}urn:component:acme:pep:hr-portal {2}http:\/\/hr\.acme\.internal:9000\/pep$/.test(line))).toBe(true);
    has('added urn:policy:acme:no-mallory');
    // A PEP registration changes nothing the pdps decide with, so this deploy is the stack's first revision.
    has('deployed urn:policy:acme:no-mallory (policy revision 1)');
    has('deployed');
    has('urn:policy:acme:no-mallory  deployed');
    // `policy show` prints the XML as stored, which is the file as sent.
    expect(stdout).toContain(readFileSync(path.join(root, 'docs', 'cli-examples', 'no-mallory.xml'), 'utf8'));

    // 4: Ann allowed, Mallory inhibited with exit code 1; at the end (after apply) Ann is masked.
    const decisions = jsonObjects(stdout).filter((object) => 'eventAllowed' in object);
    expect(decisions).toHaveLength(3);
    const [ann, mallory, annMasked] = decisions;
    expect(ann).toMatchObject({ eventAllowed: true, modifiers: [], delay: 0 });
    expect(mallory).toMatchObject({ eventAllowed: false, modifiers: [], delay: 0 });
    expect(annMasked).toMatchObject({
      eventAllowed: true,
      modifiers: [{ name: 'user', expression: '$.name.firstName', engine: [{ method: 'append', parameters: [{ name: 'suffix', value: { value: ' (masked)' } }] }] }],
    });
    has('exit code 1');
    expect(lines.some((line) => /^decision: inhibited {2}urn:decision:[0-9a-f-]{36} {2}\(policy revision 1\)$/.test(line))).toBe(true);
    has('└─ urn:policy:acme:no-mallory');
    has('   └─ mechanism 1 on urn:action:acme:show-employee: inhibit');
    has('      ├─ branch taken: if');
    has('      │  └─ if: true');
    // The comparison with both of its values, where the event's came from.
    has('      │     └─ equals(event `user` at `$.name.firstName` = "Mallory", "Mallory") → true');
    has('      └─ reason: Mallory is never shown');

    // 5: the timer shares the revision counter.
    has('added urn:timer:acme:nightly-report');
    has('deployed urn:timer:acme:nightly-report (policy revision 2)');
    const timer = jsonObjects(stdout).find((object) => (object.id as { identifier?: string } | undefined)?.identifier === 'urn:timer:acme:nightly-report');
    expect(timer).toMatchObject({ cron: '0 0 2 * * ?', deployed: true });

    // 6: the plan is printed twice (once only shown, once carried out), then the third apply has nothing to do.
    const plan = [
      'add     urn:policy:acme:limit-exports  (docs/cli-examples/policies/limit-exports.xml)',
      'replace urn:policy:acme:no-mallory  (docs/cli-examples/policies/no-mallory.xml)',
      'deploy  urn:policy:acme:limit-exports',
      'revoke  urn:timer:acme:nightly-report',
      'plan: 1 to add, 1 to replace, 1 to deploy, 1 to revoke, 0 to remove',
    ];
    const planAt = lines.indexOf(plan[0] ?? '');
    expect(lines.slice(planAt, planAt + 6)).toEqual([...plan, 'nothing changed; run again with --yes to carry out the plan']);
    // One change set: the replace of the deployed no-mallory, the deploy of limit-exports and the revoke are revision 3.
    expect(lines.slice(planAt + 6, planAt + 11)).toEqual(plan);
    expect(lines[planAt + 11]).toBe('applied 4 steps as one change (policy revision 3)');
    expect(lines[planAt + 12]).toBe('plan: nothing to do; the policies and timers of acme match docs/cli-examples/policies');

    // 7: one by one.
    has('replaced urn:policy:acme:no-mallory (policy revision 4)');
    has('revoked urn:policy:acme:no-mallory (policy revision 5)');
    has('removed urn:policy:acme:no-mallory (policy revision 5)');
    has('replaced urn:timer:acme:nightly-report');
    has('not deployed');
    has('urn:timer:acme:nightly-report was not deployed; nothing changed');
    has('removed urn:timer:acme:nightly-report (policy revision 5)');

    // What the stack holds now: limit-exports, deployed by apply; nothing else of acme.
    const token = await stack.adminToken();
    expect((await call('GET', `${stack.pap.url}/ws/policy-ids`, { token })).body).toEqual([{ identifier: 'urn:policy:acme:limit-exports' }]);
    expect((await call('GET', `${stack.pap.url}/ws/policy-ids/deployed`, { token })).body).toEqual([{ identifier: 'urn:policy:acme:limit-exports' }]);
    expect((await call('GET', `${stack.pap.url}/ws/timer-ids`, { token })).body).toEqual([]);

    // The token cache: only its owner can read it, and the secret is not in it.
    const cache = path.join(configDir, 'session.json');
    expect(statSync(cache).mode & 0o777).toBe(0o600);
    expect(statSync(configDir).mode & 0o777).toBe(0o700);
    expect(readFileSync(cache, 'utf8')).not.toContain('change-me-now-0123');

    const logout = await run(process.execPath, [cli, 'logout'], { cwd: root, env });
    expect(logout.stdout).toBe('logged out\n');
    expect(existsSync(cache)).toBe(false);
  }, 120_000);

  /** The built command in the scratch folder, logged in through `configDir`. */
  const custos = async (args: string[], stdin?: string) => {
    const child = execFile(process.execPath, [cli, ...args], { cwd: scratch, env: { ...process.env, CUSTOS_CONFIG_DIR: configDir } });
    child.stdin?.end(stdin ?? '');
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    return { code, stdout, stderr };
  };
  const logIn = () =>
    custos(
      ['login', '--auth-url', stack.auth.url, '--pap-url', stack.pap.url, '--pdp-url', stack.pdps[0]?.url ?? '', '--client-id', 'admin', '--client-secret-stdin'],
      'change-me-now-0123\n',
    );

  it('points into the files the real services refuse, and says when a service cannot be reached', async () => {
    expect((await logIn()).code).toBe(0);

    // Line 3 holds an element the language does not have; pap says where, and the CLI names the file.
    await writeFile(
      path.join(scratch, 'broken.xml'),
      '<policy xmlns="http://www.mydata-control.de/4.0/mydataLanguage" id="urn:policy:acme:broken">\n' +
        '  <mechanism event="urn:action:acme:show-employee">\n' +
        '    <nonsense/>\n' +
        '  </mechanism>\n' +
        '</policy>\n',
    );
    const broken = await custos(['policy', 'add', 'broken.xml']);
    expect(broken.code).toBe(1);
    expect(broken.stdout).toBe('');
    expect(broken.stderr).toMatch(/^broken\.xml:3:\d+: .*nonsense/m);

    // apply of a folder with one broken file (issue 25): checked offline first, nothing reaches pap.
    const token = await stack.adminToken();
    const revisionBefore = (await call('GET', `${stack.pap.url}/ws/replicas`, { token })).body.revision as number;
    const folder = path.join(scratch, 'apply-folder');
    await mkdir(folder);
    await writeFile(path.join(folder, 'good.xml'), inhibitAll('acme', 'apply-good', 'show-employee'));
    await writeFile(path.join(folder, 'owner-delete.xml'), readFileSync(path.join(scratch, 'broken.xml'), 'utf8').replace('urn:policy:acme:broken', 'urn:policy:acme:owner-delete'));
    const applied = await custos(['apply', 'apply-folder', '--yes']);
    expect(applied.code).toBe(2);
    expect(applied.stdout).toBe('');
    expect(applied.stderr).toMatch(/^ {2}apply-folder\/owner-delete\.xml:3:\d+: .*nonsense/m);
    expect(applied.stderr).not.toContain('good.xml');
    expect((await call('GET', `${stack.pap.url}/ws/policy/urn:policy:acme:apply-good`, { token })).status).toBe(404);
    expect((await call('GET', `${stack.pap.url}/ws/replicas`, { token })).body.revision).toBe(revisionBefore);

    // A JSON syntax error on line 2 of an event.
    await writeFile(path.join(scratch, 'bad-event.json'), '{ "actionId": { "scope": "acme", "action": "show-employee" },\n  "timestamp": , "parameters": [] }\n');
    const badEvent = await custos(['decide', 'bad-event.json']);
    expect(badEvent.code).toBe(1);
    expect(badEvent.stderr).toMatch(/^bad-event\.json:2:\d+: /);

    const wrongSecret = await custos(['login', '--auth-url', stack.auth.url, '--client-id', 'admin', '--client-secret-stdin'], 'not-the-secret\n');
    expect(wrongSecret.code).toBe(1);
    expect(wrongSecret.stderr).toMatch(/^login refused by auth \(invalid_client\)/);

    // A port nothing listens on: one sentence, exit 2.
    const closed = `http://127.0.0.1:${await freePort()}`;
    const unreachable = await custos(['login', '--auth-url', closed, '--client-id', 'admin', '--client-secret', 'x']);
    expect(unreachable).toEqual({ code: 2, stdout: '', stderr: `error: cannot reach auth at ${closed}: connection refused\n` });
  }, 60_000);

  it("sets a solution's default decision, which the next decide waits for and gets", async () => {
    expect((await logIn()).code).toBe(0);
    await writeFile(path.join(scratch, 'unmatched.json'), JSON.stringify({ actionId: { scope: 'acme', action: 'nothing-speaks-of-it' }, timestamp: 1, parameters: [] }));
    const set = await custos(['solution', 'settings', 'acme', '--default-decision', 'inhibit']);
    expect(set.code).toBe(0);
    expect(set.stdout).toMatch(/^settings of acme changed \(policy revision \d+\)\ndefaultDecision: inhibit\nauthzenDefault: not set \(the pdp's PDP_AUTHZEN_DEFAULT\)\n$/);
    // decide sends the revision just answered as Min-Policy-Revision: exit 1 is the inhibit, not a stale allow.
    expect((await custos(['decide', 'unmatched.json'])).code).toBe(1);
    const shown = await custos(['solution', 'settings', 'acme', '--json']);
    expect(JSON.parse(shown.stdout)).toMatchObject({ solution: 'acme', settings: { defaultDecision: 'inhibit' } });
    expect((await custos(['solution', 'settings', 'acme', '--default-decision', 'unset'])).code).toBe(0);
    expect((await custos(['decide', 'unmatched.json'])).code).toBe(0);
  }, 120_000);
});
