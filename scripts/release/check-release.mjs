#!/usr/bin/env node
// Before a release is published: the tag names the version every manifest carries, and CHANGELOG.md has a section
// for it. Prints that section (the release notes), or says what does not match and exits 1.
//   node scripts/release/check-release.mjs <tag, e.g. v1.2.0>
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT, workspaces } from './workspaces.mjs';

/** The section `## <version>…` of the changelog, up to the next `## `; undefined when there is none. */
function changelogSection(text, version) {
  const lines = text.split('\n');
  const start = lines.findIndex((line) => line.startsWith(`## ${version} `) || line === `## ${version}`);
  if (start === -1) return undefined;
  const end = lines.findIndex((line, index) => index > start && line.startsWith('## '));
  return lines.slice(start + 1, end === -1 ? undefined : end).join('\n').trim();
}

/** Every problem with releasing `tag` from this tree, and the release notes. */
function checkRelease(tag) {
  const problems = [];
  const version = /^v(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?)$/.exec(tag ?? '')?.[1];
  if (!version) return { problems: [`tag \`${tag ?? ''}\` is not of the form v1.2.3`] };
  const manifests = [['the root', JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'))]];
  for (const [name, { manifest }] of workspaces()) manifests.push([`\`${name}\``, manifest]);
  for (const [what, manifest] of manifests) {
    if (manifest.version !== version) problems.push(`${what} is at version \`${manifest.version}\`, the tag says \`${version}\` (node scripts/release/version.mjs ${version})`);
  }
  const notes = changelogSection(readFileSync(path.join(ROOT, 'CHANGELOG.md'), 'utf8'), version);
  if (!notes) problems.push(`CHANGELOG.md has no section \`## ${version}\` with what changed`);
  return { version, notes, problems };
}

const { notes, problems } = checkRelease(process.argv[2]);
for (const problem of problems) console.error(`release: ${problem}`);
if (problems.length > 0) process.exit(1);
console.log(notes);
