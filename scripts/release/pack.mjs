#!/usr/bin/env node
// Packs every package Custos publishes (scripts/release/packages.mjs) into one folder and prints, as JSON, each
// package's name, version and tarball. Build first (`npx turbo run build`).
//   node scripts/release/pack.mjs [--out <dir>] [--repository <https://github.com/owner/name>]
import path from 'node:path';
import { parseArgs } from 'node:util';
import { packAll, ROOT } from './packages.mjs';

const { values } = parseArgs({ options: { out: { type: 'string' }, repository: { type: 'string' } } });
const packed = await packAll(path.resolve(values.out ?? path.join(ROOT, 'dist-packages')), { repository: values.repository });
console.log(JSON.stringify(packed.map(({ name, version, tarball, bundled, files }) => ({ name, version, tarball, bundled, files })), null, 2));
