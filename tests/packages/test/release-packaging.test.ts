import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { repoRoot } from '@custos/test-kit';
import { run } from './outside-project';

/**
 * What the release script refuses, on small repositories it is copied into: nothing it publishes may name a
 * `@custos/*` package the project does not publish, a bundled workspace must stay private, and a dependency the
 * bundle needs in two ranges must be aligned first. The real packages are published and installed by
 * published-packages.test.ts.
 */

interface Workspace {
  manifest: Record<string, unknown>;
  js: string;
  dts: string;
}

/** What the script imports; their own dependencies resolve from where they really are. */
const TOOLS = ['esbuild', 'rollup', 'rollup-plugin-dts'];

describe('the release script on a repository of its shape', () => {
  let repo: string;

  beforeAll(() => {
    repo = mkdtempSync(path.join(os.tmpdir(), 'custos-packaging-'));
  });
  afterAll(() => rmSync(repo, { recursive: true, force: true }));

  /** A repository whose published workspaces are pep and cli, with contracts beside them; the bundlers linked in. */
  function repository(workspaces: Record<string, Workspace>): string {
    rmSync(repo, { recursive: true, force: true });
    mkdirSync(path.join(repo, 'scripts', 'release'), { recursive: true });
    for (const script of ['packages.mjs', 'workspaces.mjs', 'pack.mjs']) {
      copyFileSync(path.join(repoRoot(), 'scripts', 'release', script), path.join(repo, 'scripts', 'release', script));
    }
    writeFileSync(path.join(repo, 'package.json'), JSON.stringify({ name: 'root', private: true, license: 'Apache-2.0', engines: { node: '>=20.11' }, workspaces: ['packages/*'] }));
    mkdirSync(path.join(repo, 'node_modules', '@custos'), { recursive: true });
    for (const tool of TOOLS) {
      symlinkSync(path.join(repoRoot(), 'node_modules', tool), path.join(repo, 'node_modules', tool));
    }
    for (const [folder, workspace] of Object.entries(workspaces)) {
      const dir = path.join(repo, 'packages', folder);
      mkdirSync(path.join(dir, 'dist'), { recursive: true });
      writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ version: '1.0.0', private: true, types: 'dist/index.d.ts', main: 'dist/index.js', files: ['dist'], ...workspace.manifest }));
      writeFileSync(path.join(dir, 'README.md'), `# ${folder}\n`);
      writeFileSync(path.join(dir, 'dist', 'index.js'), workspace.js);
      writeFileSync(path.join(dir, 'dist', 'index.d.ts'), workspace.dts);
      symlinkSync(dir, path.join(repo, 'node_modules', '@custos', folder));
    }
    return repo;
  }

  const contracts = (manifest: Record<string, unknown> = {}): Workspace => ({
    manifest: { name: '@custos/contracts', dependencies: { 'tiny-lib': '^1.2.0' }, ...manifest },
    js: "const tiny = require('tiny-lib');\nexports.HEADER = 'Policy-Revision';\nexports.tiny = tiny;\n",
    dts: 'export interface Wire { id: string }\nexport declare const HEADER: string;\n',
  });
  const publishedUsingContracts = (name: string, dependencies: Record<string, string> = {}): Workspace => ({
    manifest: { name, description: `the ${name} package`, dependencies: { '@custos/contracts': '1.0.0', ...dependencies } },
    js: "const { HEADER } = require('@custos/contracts');\nexports.header = () => HEADER;\n",
    dts: "import type { Wire } from '@custos/contracts';\nexport declare function header(wire?: Wire): string;\n",
  });

  const pack = () => run(process.execPath, [path.join('scripts', 'release', 'pack.mjs'), '--out', path.join(repo, 'out')], { cwd: repo, timeoutMs: 60_000 });

  it('bundles a private workspace in, code and types, and takes over its third-party dependencies', async () => {
    repository({ contracts: contracts(), pep: publishedUsingContracts('@custos/pep'), cli: publishedUsingContracts('@custos/cli', { 'cli-lib': '^3.0.0' }) });
    expect(await pack()).toMatchObject({ code: 0 });
    const stage = (name: string, file: string) => readFileSync(path.join(repo, 'out', 'stage', name, file), 'utf8');
    expect(JSON.parse(stage('pep', 'package.json'))).toMatchObject({ name: '@custos/pep', license: 'Apache-2.0', dependencies: { 'tiny-lib': '^1.2.0' } });
    expect(JSON.parse(stage('cli', 'package.json')).dependencies).toEqual({ 'cli-lib': '^3.0.0', 'tiny-lib': '^1.2.0' });
    expect(stage('pep', 'dist/index.js')).toContain('Policy-Revision');
    expect(stage('pep', 'dist/index.js')).toMatch(/require\("tiny-lib"\)/);
    expect(stage('pep', 'dist/index.d.ts')).toMatch(/interface Wire/);
    expect(`${stage('pep', 'dist/index.js')}${stage('pep', 'dist/index.d.ts')}`).not.toContain('@custos/contracts');
  });

  it('ships the other folders a workspace lists in `files` as they are, and stops when one was not built', async () => {
    const cli = publishedUsingContracts('@custos/cli');
    repository({ contracts: contracts(), pep: publishedUsingContracts('@custos/pep'), cli: { ...cli, manifest: { ...cli.manifest, files: ['dist', 'schema'] } } });
    const missing = await pack();
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('packages/cli/schema is missing; build first');

    mkdirSync(path.join(repo, 'packages', 'cli', 'schema', '4.0'), { recursive: true });
    writeFileSync(path.join(repo, 'packages', 'cli', 'schema', '4.0', 'language.xsd'), '<schema/>\n');
    expect(await pack()).toMatchObject({ code: 0 });
    expect(readFileSync(path.join(repo, 'out', 'stage', 'cli', 'schema', '4.0', 'language.xsd'), 'utf8')).toBe('<schema/>\n');
    expect(JSON.parse(readFileSync(path.join(repo, 'out', 'stage', 'cli', 'package.json'), 'utf8')).files).toEqual(['dist', 'schema']);
  });

  it('refuses to bundle a workspace that could be published on its own', async () => {
    repository({ contracts: contracts({ private: false }), pep: publishedUsingContracts('@custos/pep'), cli: publishedUsingContracts('@custos/cli') });
    const result = await pack();
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('workspace `@custos/contracts` is bundled into a published package, so it must stay `private: true`');
  });

  it('refuses one dependency wanted in two ranges', async () => {
    repository({ contracts: contracts(), pep: publishedUsingContracts('@custos/pep', { 'tiny-lib': '^2.0.0' }), cli: publishedUsingContracts('@custos/cli') });
    const result = await pack();
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('dependency `tiny-lib` is wanted as `^1.2.0` and as `^2.0.0`; align the workspaces first');
  });

  it('refuses a @custos name the project does not publish, declared or only imported', async () => {
    const ghost = (dependencies: Record<string, string>): Workspace => ({
      manifest: { name: '@custos/pep', dependencies },
      js: "exports.ghost = require('@custos/ghost');\n",
      dts: 'export declare const ghost: unknown;\n',
    });
    repository({ contracts: contracts(), pep: ghost({ '@custos/ghost': '1.0.0' }), cli: publishedUsingContracts('@custos/cli') });
    const declared = await pack();
    expect(declared.code).toBe(1);
    expect(declared.stderr).toContain("dependency `@custos/ghost` is in the project's scope but no workspace: nothing published may name it");

    repository({ contracts: contracts(), pep: ghost({}), cli: publishedUsingContracts('@custos/cli') });
    const imported = await pack();
    expect(imported.code).toBe(1);
    // Not declared, not a workspace: the bundler finds nothing to put in and stops.
    expect(imported.stderr).toContain('Could not resolve "@custos/ghost"');
  });
});
