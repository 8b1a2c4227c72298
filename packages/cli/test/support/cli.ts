import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export const REPO_ROOT = path.join(__dirname, '..', '..', '..', '..');
export const BIN = path.join(REPO_ROOT, 'packages', 'cli', 'bin', 'custos.js');
export const EXAMPLES = path.join(REPO_ROOT, 'examples');

export interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the built CLI as a child process, the way users run it. */
export function custos(args: readonly string[], options: { cwd?: string } = {}): Run {
  if (!existsSync(path.join(REPO_ROOT, 'packages', 'cli', 'dist', 'index.js'))) {
    throw new Error('packages/cli/dist is missing: run `npx turbo run build --filter=@custos/cli...` before these tests');
  }
  const result = spawnSync(process.execPath, [BIN, ...args], { cwd: options.cwd ?? REPO_ROOT, encoding: 'utf8', env: { ...process.env, FORCE_COLOR: '0' } });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

export function temporaryDirectory(): string {
  return mkdtempSync(path.join(tmpdir(), 'custos-cli-'));
}

export const NS = {
  language: 'http://www.mydata-control.de/4.0/mydataLanguage',
  constant: 'http://www.mydata-control.de/4.0/constant',
  event: 'http://www.mydata-control.de/4.0/event',
  parameter: 'http://www.mydata-control.de/4.0/parameter',
};

/** A policy document around mechanisms written with the conventional prefixes. */
export function policyXml(id: string, mechanisms: string): string {
  return `<?xml version="1.0"?>
<policy xmlns="${NS.language}" xmlns:constant="${NS.constant}" xmlns:event="${NS.event}" xmlns:parameter="${NS.parameter}" id="${id}">
${mechanisms}
</policy>
`;
}
