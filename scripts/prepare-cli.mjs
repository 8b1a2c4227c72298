// Root `prepare` (runs after `npm ci` / `npm install`): builds the `custos` CLI and the packages it needs, so
// `npx custos` works in a fresh clone, where no dist/ exists yet. It steps aside where building cannot or need not
// happen: an install of manifests only (the Dockerfile's dependency layer), or one without dev dependencies.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const turbo = path.join(root, 'node_modules', '.bin', process.platform === 'win32' ? 'turbo.cmd' : 'turbo');

if (!existsSync(path.join(root, 'packages', 'cli', 'src', 'index.ts'))) {
  console.log('prepare: no CLI sources here; the custos CLI is not built');
  process.exit(0);
}
if (!existsSync(turbo)) {
  console.log('prepare: turbo is not installed (dev dependencies omitted); the custos CLI is not built');
  process.exit(0);
}
const result = spawnSync(turbo, ['run', 'build', '--filter=@custos/cli...', '--output-logs=errors-only'], { cwd: root, stdio: 'inherit' });
process.exit(result.status ?? 1);
