// Where the benchmarks live and what they share: the repository root, the built workspaces, the NATS address,
// the admin client and the solution every benchmark policy belongs to.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// This file is in scripts/bench/lib/; BENCH_DIR is scripts/bench/, where the generators' own scripts are.
export const BENCH_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const ROOT = path.resolve(BENCH_DIR, '..', '..');
export const require = createRequire(import.meta.url);

const distOf = (workspace) => {
  const file = path.join(ROOT, workspace, 'dist', 'index.js');
  if (!existsSync(file)) throw new Error(`${file} is missing; run \`npx turbo run build\` first`);
  return require(file);
};
/** @custos/test-kit and @custos/contracts, built. */
export const testKit = () => distOf('packages/test-kit');
export const contracts = () => distOf('packages/contracts');

/** Node flags of every pdp the benchmarks start; BENCH_PDP_NODE_ARGS (space-separated) replaces them for a comparison. */
export const PDP_NODE_ARGS = (process.env.BENCH_PDP_NODE_ARGS ?? '').split(' ').filter(Boolean);

export const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
export const ADMIN = { id: 'bench-admin', secret: 'bench-admin-secret-0123456789abcdef' };
/** Solution (tenant) of every benchmark policy. */
export const SOLUTION = 'bench';
