#!/usr/bin/env node
// Packs (pack.mjs) and publishes every package Custos publishes, in order. The release workflow runs it with the
// repository's URL (provenance names it); the packages test runs it against a local registry. Arguments after
// `--` go to each `npm publish` and win over the packages' publishConfig (registry, provenance, access).
//   node scripts/release/publish.mjs [--out <dir>] [--repository <url>] [-- <npm publish arguments>]
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { packAll, ROOT } from './packages.mjs';

const { values, positionals: npmArguments } = parseArgs({
  options: { out: { type: 'string' }, repository: { type: 'string' } },
  allowPositionals: true,
});
const packed = await packAll(path.resolve(values.out ?? path.join(ROOT, 'dist-packages')), { repository: values.repository });
for (const { name, version, tarball } of packed) {
  console.log(`publishing ${name}@${version}`);
  execFileSync('npm', ['publish', tarball, ...npmArguments], { stdio: 'inherit' });
}
