import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { repoRoot } from '@custos/test-kit';
import { parse } from 'yaml';
import { run } from './outside-project';

/**
 * The release workflow, as far as it can be checked without GitHub: every workflow is valid against the workflow
 * schema, the release publishes with the script the packages test publishes with, and the version and changelog
 * check refuses what it must and hands over the right release notes.
 */

const workflows = path.join(repoRoot(), '.github', 'workflows');

interface Step {
  run?: string;
  uses?: string;
  env?: Record<string, string>;
}
interface Job {
  needs?: string;
  uses?: string;
  permissions?: Record<string, string>;
  steps?: Step[];
}

describe('the release workflow', () => {
  it.each(readdirSync(workflows).filter((file) => file.endsWith('.yml')))('%s is a valid GitHub workflow', async (file) => {
    const validator = require.resolve('@action-validator/cli/cli.mjs');
    const result = await run(process.execPath, [validator, path.join(workflows, file)], { cwd: repoRoot() });
    expect(`${result.stdout}${result.stderr}`).toBe('');
    expect(result.code).toBe(0);
  });

  it('runs the CI checks first, then publishes with the tested script, with provenance, and pushes the image', () => {
    const workflow = parse(readFileSync(path.join(workflows, 'release.yml'), 'utf8')) as { on: { push: { tags: string[] } }; jobs: Record<string, Job> };
    expect(workflow.on.push.tags).toEqual(['v*']);
    const { checks, npm, image } = workflow.jobs;
    expect(checks?.uses).toBe('./.github/workflows/ci.yml');
    expect(npm?.needs).toBe('checks');
    expect(npm?.permissions?.['id-token']).toBe('write');
    const runs = (npm?.steps ?? []).map((step) => step.run ?? '');
    const publish = runs.findIndex((line) => line.startsWith('node scripts/release/publish.mjs '));
    const check = runs.findIndex((line) => line.startsWith('node scripts/release/check-release.mjs "$GITHUB_REF_NAME"'));
    expect(check).toBeGreaterThanOrEqual(0);
    expect(publish).toBeGreaterThan(check);
    // Registry and provenance come from the published manifests' publishConfig, not from flags the test would skip.
    expect(runs[publish]).not.toMatch(/--registry|--provenance|--access/);
    expect(image?.needs).toBe('checks');
    expect((image?.steps ?? []).map((step) => step.uses?.split('@')[0])).toContain('docker/build-push-action');
  });
});

describe('the version and changelog check', () => {
  let repo: string;

  /** A repository of two workspaces at `version` with the given changelog, and the release scripts. */
  function fakeRepository(version: string, changelog: string): string {
    rmSync(repo, { recursive: true, force: true });
    mkdirSync(path.join(repo, 'scripts', 'release'), { recursive: true });
    for (const script of ['check-release.mjs', 'workspaces.mjs']) {
      copyFileSync(path.join(repoRoot(), 'scripts', 'release', script), path.join(repo, 'scripts', 'release', script));
    }
    writeFileSync(path.join(repo, 'package.json'), JSON.stringify({ name: 'root', version, workspaces: ['packages/*'] }));
    for (const name of ['one', 'two']) {
      mkdirSync(path.join(repo, 'packages', name), { recursive: true });
      writeFileSync(path.join(repo, 'packages', name, 'package.json'), JSON.stringify({ name: `@custos/${name}`, version }));
    }
    writeFileSync(path.join(repo, 'CHANGELOG.md'), changelog);
    return repo;
  }

  const check = (tag: string) => run(process.execPath, [path.join('scripts', 'release', 'check-release.mjs'), tag], { cwd: repo });

  const CHANGELOG = '# Changelog\n\n## Unreleased\n\n- next\n\n## 1.2.0 — 2026-12-01\n\n- the new thing\n- another\n\n## 1.1.0 — 2026-11-01\n\n- old\n';

  beforeAll(() => {
    repo = mkdtempSync(path.join(os.tmpdir(), 'custos-release-'));
  });
  afterAll(() => rmSync(repo, { recursive: true, force: true }));

  it('prints the version’s changelog section as the release notes', async () => {
    fakeRepository('1.2.0', CHANGELOG);
    expect(await check('v1.2.0')).toEqual({ code: 0, stdout: '- the new thing\n- another\n', stderr: '' });
  });

  it('refuses a tag that is not the version of every manifest, naming each', async () => {
    fakeRepository('1.2.0', CHANGELOG);
    const result = await check('v1.1.0');
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toEqual([
      'release: the root is at version `1.2.0`, the tag says `1.1.0` (node scripts/release/version.mjs 1.1.0)',
      'release: `@custos/one` is at version `1.2.0`, the tag says `1.1.0` (node scripts/release/version.mjs 1.1.0)',
      'release: `@custos/two` is at version `1.2.0`, the tag says `1.1.0` (node scripts/release/version.mjs 1.1.0)',
    ]);
  });

  it('refuses a version the changelog has no section for, and a tag that is no version', async () => {
    fakeRepository('1.3.0', CHANGELOG);
    expect(await check('v1.3.0')).toMatchObject({ code: 1, stderr: 'release: CHANGELOG.md has no section `## 1.3.0` with what changed\n' });
    expect(await check('1.3.0')).toMatchObject({ code: 1, stderr: 'release: tag `1.3.0` is not of the form v1.2.3\n' });
  });
});
