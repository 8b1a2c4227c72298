#!/usr/bin/env node
// Sets the release version everywhere it is written: the root manifest, every workspace, and every workspace's
// dependency on another workspace. Those dependencies name exact versions, and one that no longer matches its
// workspace would be looked up in the registry instead, so they move together. Then refreshes package-lock.json.
//   node scripts/release/version.mjs <version>
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT, workspaces } from './workspaces.mjs';

const SEMVER = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$/;
const version = process.argv[2];
if (!version || !SEMVER.test(version)) {
  console.error(`version: \`${version ?? ''}\` is not a version like 1.2.3 or 1.2.3-rc.1`);
  process.exit(2);
}
const all = workspaces();
const files = [path.join(ROOT, 'package.json'), ...[...all.values()].map(({ dir }) => path.join(dir, 'package.json'))];
for (const file of files) {
  const manifest = JSON.parse(readFileSync(file, 'utf8'));
  manifest.version = version;
  for (const field of ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies']) {
    for (const name of Object.keys(manifest[field] ?? {})) if (all.has(name)) manifest[field][name] = version;
  }
  writeFileSync(file, `${JSON.stringify(manifest, null, 2)}\n`);
}
execFileSync('npm', ['install', '--package-lock-only', '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: ROOT, stdio: 'inherit' });
console.log(`version ${version} in ${files.length} manifests; now add its section to CHANGELOG.md`);
