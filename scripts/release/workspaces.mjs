// The repository's root and its workspaces, for the release scripts. No dependency: the release workflow's checks
// run it before `npm ci`.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

const readJson = (file) => JSON.parse(readFileSync(file, 'utf8'));

/** Every workspace of the repository by package name: its folder and manifest. */
export function workspaces() {
  const root = readJson(path.join(ROOT, 'package.json'));
  const found = new Map();
  for (const pattern of root.workspaces) {
    if (!pattern.endsWith('/*')) throw new Error(`workspace pattern \`${pattern}\` is not of the form \`folder/*\``);
    const parent = path.join(ROOT, pattern.slice(0, -2));
    for (const entry of readdirSync(parent, { withFileTypes: true })) {
      const manifestFile = path.join(parent, entry.name, 'package.json');
      if (!entry.isDirectory() || !existsSync(manifestFile)) continue;
      const manifest = readJson(manifestFile);
      found.set(manifest.name, { dir: path.join(parent, entry.name), manifest });
    }
  }
  return found;
}
