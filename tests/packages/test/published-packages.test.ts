import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { call, repoRoot, startStack, TEST_NATS_URL, waitFor, type Stack } from '@custos/test-kit';
import { startLocalRegistry, type LocalRegistry } from './local-registry';
import { createProject, mustRun, run } from './outside-project';

/**
 * The packages Custos publishes, as a user gets them: the release script (scripts/release/publish.mjs, the one the
 * release workflow runs) publishes them to a local registry, and projects outside the repository install them by
 * name from it: an application uses the SDK against a real stack, a policy repository runs the CLI on its policies.
 */

const NS = [
  'xmlns="http://www.mydata-control.de/4.0/mydataLanguage"',
  'xmlns:constant="http://www.mydata-control.de/4.0/constant"',
  'xmlns:parameter="http://www.mydata-control.de/4.0/parameter"',
].join(' ');

const POLICY = `<policy ${NS} id="urn:policy:acme:packaged-sdk">
  <mechanism event="urn:action:acme:show-employee">
    <if><constant:true/>
      <then><modify eventParameter="user" method="replace" jsonPathQuery="$.salary"><parameter:string name="replaceWith" value="(hidden)"/></modify></then>
    </if>
  </mechanism>
  <mechanism event="urn:action:acme:delete-employee">
    <if><constant:true/><then><inhibit reason="employees are archived, not deleted"/></then></if>
  </mechanism>
</policy>`;

/** The application's enforcement point: one line of JSON per event, what was released or why nothing was. */
const ENFORCE_SCRIPT = `import { CustosClient, event, typed } from '@custos/pep';

const custos = new CustosClient({
  pdpUrl: process.env.CUSTOS_PDP_URL,
  authUrl: process.env.CUSTOS_AUTH_URL,
  clientId: process.env.CUSTOS_CLIENT_ID,
  clientSecret: process.env.CUSTOS_CLIENT_SECRET,
});
for (const action of ['show-employee', 'delete-employee']) {
  const request = event('acme', action, { user: typed({ id: 'u1', name: 'Ann Lee', salary: 5200 }, 'com.acme.User') });
  try {
    const { event: released } = await custos.enforce(request);
    console.log(JSON.stringify({ action, released: released.parameters[0].value.value }));
  } catch (error) {
    console.log(JSON.stringify({ action, refused: error.name, allowed: error.decision?.eventAllowed ?? null }));
  }
}
`;

/** The SDK's declarations must carry every type they mention: this compiles only if nothing is missing. */
const TYPES_CHECK = `import { CustosClient, DecisionDeniedError, event, typed, type AccessEvaluationRequest, type CustosClientOptions, type Decision } from '@custos/pep';

const options: CustosClientOptions = { pdpUrl: 'http://pdp', authUrl: 'http://auth', clientId: 'id', clientSecret: 'secret' };
const client = new CustosClient(options);
const request: AccessEvaluationRequest = { subject: { type: 'user', id: 'ann' }, resource: { type: 'document', id: 'd1' }, action: { name: 'read' } };
export async function check(): Promise<boolean> {
  const decision: Decision = await client.decide(event('acme', 'show-employee', { user: typed({ id: 'u1' }, 'com.acme.User') }));
  const denied: unknown = new Error('x');
  return decision.eventAllowed && !(denied instanceof DecisionDeniedError) && request.action.name === 'read';
}
`;

/** The repository URL the release workflow passes (there: the GitHub repository the workflow runs in). */
const REPOSITORY = 'https://github.com/example/custos';

type Line = { action: string; released?: unknown; refused?: string; allowed?: boolean | null };

const lines = (stdout: string): Line[] => stdout.split('\n').filter((line) => line !== '').map((line) => JSON.parse(line) as Line);

describe('the published packages, installed by name outside the repository', () => {
  let dir: string;
  let registry: LocalRegistry;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'custos-packages-'));
    registry = await startLocalRegistry(path.join(dir, 'registry'));
    const publisherRc = path.join(dir, 'publisher.npmrc');
    writeFileSync(publisherRc, `//${new URL(registry.url).host}/:_authToken=${registry.token}\n`);
    await mustRun(
      process.execPath,
      [path.join('scripts', 'release', 'publish.mjs'), '--out', path.join(dir, 'packed'), '--repository', REPOSITORY, '--', `--registry=${registry.url}/`, '--provenance=false', `--userconfig=${publisherRc}`],
      { cwd: repoRoot(), timeoutMs: 120_000 },
    );
  }, 180_000);

  afterAll(async () => {
    await registry?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 30_000);

  it('publishes the SDK and the CLI, and no workspace they are made of', async () => {
    for (const [name, folder] of [['@custos/pep', 'packages/pep'], ['@custos/cli', 'packages/cli']] as const) {
      const version = (JSON.parse(readFileSync(path.join(repoRoot(), folder, 'package.json'), 'utf8')) as { version: string }).version;
      const packument = await call('GET', `${registry.url}/${name.replace('/', '%2f')}`);
      expect(packument.status).toBe(200);
      const manifest = packument.body.versions[version] as { dependencies?: Record<string, string>; license: string; engines: { node: string }; repository: unknown };
      expect(Object.keys(manifest.dependencies ?? {}).filter((dependency) => dependency.startsWith('@custos/'))).toEqual([]);
      expect(manifest.license).toBe('Apache-2.0');
      expect(manifest.engines.node).toMatch(/>=20/);
      expect(manifest.repository).toEqual({ type: 'git', url: `git+${REPOSITORY}.git`, directory: folder });
      // Links into the repository point at the release's tag: the files they name are not in the package.
      const readme = packument.body.readme as string;
      expect(readme).toContain(`](${REPOSITORY}/blob/v${version}/`);
      expect(readme).not.toMatch(/\]\(\.\.?\//);
    }
    for (const name of ['@custos/contracts', '@custos/policy-engine', '@custos/service-kit']) {
      expect((await call('GET', `${registry.url}/${name.replace('/', '%2f')}`)).status).toBe(404);
    }
  });

  describe('an application that enforces with @custos/pep', () => {
    let stack: Stack;
    let app: string;
    let env: Record<string, string>;

    beforeAll(async () => {
      app = createProject(path.join(dir, 'app'), registry.url, { name: 'hr-portal', type: 'module' });
      await mustRun('npm', ['install', '@custos/pep', '--no-audit', '--no-fund'], { cwd: app, timeoutMs: 180_000 });
      writeFileSync(path.join(app, 'enforce.js'), ENFORCE_SCRIPT);

      stack = await startStack({ natsUrl: TEST_NATS_URL, replicas: 1 });
      const admin = await stack.adminToken();
      const created = await call('POST', `${stack.auth.url}/clients`, { token: admin, json: { solutions: ['acme'], scopes: ['event:decide'], description: 'HR portal PEP' } });
      expect(created.status).toBe(201);
      expect((await call('POST', `${stack.pap.url}/ws/policy`, { token: admin, xml: POLICY })).status).toBe(201);
      const deployed = await call('POST', `${stack.pap.url}/ws/policy/urn:policy:acme:packaged-sdk/deploy`, { token: admin });
      expect(deployed.body).toBe(true);
      const pdp = stack.pdps[0];
      if (!pdp) throw new Error('the stack has no pdp');
      const revision = Number(deployed.headers.get('policy-revision'));
      await waitFor(async () => (await call('GET', `${pdp.url}/status`)).body.revision >= revision, {
        timeoutMs: 15_000,
        what: `the pdp to apply revision ${revision}`,
      });
      env = {
        CUSTOS_PDP_URL: pdp.url,
        CUSTOS_AUTH_URL: stack.auth.url,
        CUSTOS_CLIENT_ID: (created.body as { client_id: string }).client_id,
        CUSTOS_CLIENT_SECRET: (created.body as { client_secret: string }).client_secret,
      };
    }, 300_000);

    afterAll(() => stack?.stop(), 60_000);

    it('installs the SDK with only the third-party dependencies its manifest names: no other @custos package comes with it', () => {
      const manifest = JSON.parse(readFileSync(path.join(app, 'node_modules', '@custos', 'pep', 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
      const dependencies = Object.keys(manifest.dependencies ?? {});
      expect(dependencies.filter((name) => name.startsWith('@custos/'))).toEqual([]);
      // The contracts' schemas are TypeBox values built when the SDK loads, so TypeBox is its one runtime dependency.
      expect(dependencies).toEqual(['@sinclair/typebox']);
      const folders = new Set(['.package-lock.json', '@custos', ...dependencies.map((name) => name.split('/')[0] ?? name)]);
      expect(readdirSync(path.join(app, 'node_modules')).sort()).toEqual([...folders].sort());
      expect(readdirSync(path.join(app, 'node_modules', '@custos'))).toEqual(['pep']);
    });

    it('applies the decision’s modifier and refuses the inhibited event', async () => {
      const output = lines(await mustRun(process.execPath, ['enforce.js'], { cwd: app, env }));
      expect(output).toEqual([
        { action: 'show-employee', released: { id: 'u1', name: 'Ann Lee', salary: '(hidden)' } },
        { action: 'delete-employee', refused: 'DecisionDeniedError', allowed: false },
      ]);
    });

    it('loads from CommonJS too, and its declarations type-check in a strict TypeScript project', async () => {
      const required = await mustRun(process.execPath, ['-e', "const pep = require('@custos/pep'); console.log(typeof pep.CustosClient, typeof pep.applyModifiers)"], { cwd: app });
      expect(required.trim()).toBe('function function');
      writeFileSync(path.join(app, 'check.ts'), TYPES_CHECK);
      const tsc = path.join(repoRoot(), 'node_modules', 'typescript', 'bin', 'tsc');
      // No @types/node: the declarations must not lean on anything the application did not install.
      const compilerOptions = { strict: true, noEmit: true, module: 'node16', moduleResolution: 'node16', target: 'es2022', lib: ['es2023'], types: [] };
      writeFileSync(path.join(app, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['check.ts'] }));
      const compiled = await run(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: app });
      expect(`${compiled.stdout}${compiled.stderr}`).toBe('');
      expect(compiled.code).toBe(0);
    }, 60_000);

    it('fails closed when the pdp is gone: nothing is released', async () => {
      const pdp = stack.pdps[0];
      if (!pdp) throw new Error('the stack has no pdp');
      await pdp.stop();
      const output = lines(await mustRun(process.execPath, ['enforce.js'], { cwd: app, env }));
      expect(output).toEqual([
        { action: 'show-employee', refused: 'TransportError', allowed: null },
        { action: 'delete-employee', refused: 'TransportError', allowed: null },
      ]);
    });
  });

  describe('a policy repository that checks and tests with @custos/cli', () => {
    let policies: string;
    const examples = path.join(repoRoot(), 'examples');

    beforeAll(async () => {
      // The README's commands. libxmljs2 (through the CLI) builds its native part in an install script, which npm
      // runs only once the project allows it.
      policies = createProject(path.join(dir, 'acme-policies'), registry.url, { name: 'acme-policies' });
      await mustRun('npm', ['install', '--save-dev', '@custos/cli', '--no-audit', '--no-fund'], { cwd: policies, timeoutMs: 420_000 });
      await mustRun('npm', ['install-scripts', 'approve', 'libxmljs2'], { cwd: policies });
      // Compiling libxml2 took up to five minutes on a loaded two-core machine.
      await mustRun('npm', ['rebuild', 'libxmljs2'], { cwd: policies, timeoutMs: 600_000 });
      cpSync(path.join(examples, 'policies'), path.join(policies, 'policies'), { recursive: true });
      cpSync(path.join(examples, 'tests'), path.join(policies, 'tests'), { recursive: true });
    }, 1_080_000);

    it('installs the CLI as a dev dependency, with no other @custos package', () => {
      expect(readdirSync(path.join(policies, 'node_modules', '@custos'))).toEqual(['cli']);
      const manifest = JSON.parse(readFileSync(path.join(policies, 'package.json'), 'utf8')) as { devDependencies: Record<string, string>; allowScripts: unknown };
      expect(Object.keys(manifest.devDependencies)).toEqual(['@custos/cli']);
      expect(manifest.allowScripts).toEqual({ libxmljs2: true });
    });

    it('checks the policies: valid ones pass, a broken one is reported where it breaks', async () => {
      const valid = await run('npx', ['custos', 'policy', 'check', 'policies'], { cwd: policies });
      expect(valid).toMatchObject({ code: 0 });
      writeFileSync(path.join(policies, 'broken.xml'), `<policy ${NS} id="urn:policy:acme:broken">\n  <mechanism event="urn:action:acme:x">\n</policy>\n`);
      const broken = await run('npx', ['custos', 'policy', 'check', 'broken.xml'], { cwd: policies });
      expect(broken.code).toBe(1);
      expect(`${broken.stdout}${broken.stderr}`).toMatch(/broken\.xml:\d+:\d+: /);
    }, 60_000);

    it('runs the policy tests: every test of every file passes', async () => {
      // A test is a `- name:` entry or a row of a table (written `      - [...]` in the examples).
      const tests = readdirSync(path.join(examples, 'tests')).reduce(
        (count, file) => count + (readFileSync(path.join(examples, 'tests', file), 'utf8').match(/^ {2}- name: |^ {6}- \[/gm)?.length ?? 0),
        0,
      );
      const result = await run('npx', ['custos', 'policy', 'test'], { cwd: policies });
      expect(result.stdout).toContain(`${tests} passed, 0 failed`);
      expect(result.code).toBe(0);
    }, 60_000);

    it('ships the XSD for editors and copies it into the project', async () => {
      const shipped = await run('npx', ['custos', 'policy', 'schema'], { cwd: policies });
      expect(shipped.code).toBe(0);
      expect(shipped.stdout.trim()).toBe(path.join(policies, 'node_modules', '@custos', 'cli', 'schema', '4.0', 'mydataLanguage.xsd'));
      expect(readFileSync(shipped.stdout.trim(), 'utf8')).toContain('targetNamespace="http://www.mydata-control.de/4.0/mydataLanguage"');
      const copied = await run('npx', ['custos', 'policy', 'schema', '--out', 'schema'], { cwd: policies });
      expect(copied.code).toBe(0);
      expect(readdirSync(path.join(policies, 'schema'))).toEqual(expect.arrayContaining(['catalog.xml', 'mydataLanguage.xsd', 'event.xsd']));
    }, 60_000);
  });
});
