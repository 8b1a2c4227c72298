// Shared plumbing of the benchmarks in scripts/bench/: processes that are always stopped, a stack
// of real services on a fresh database and NATS prefix, policy loading with bounded concurrency,
// a keep-alive HTTP client, load generators in child processes, statistics and tables.
// Plain Node ESM; imports the built workspaces from their dist/ folders. The one entry point the benchmarks
// import (`import * as lib from './lib.mjs'`); each concern is its own file in lib/.
export * from './lib/base.mjs';
// `children` stays inside lib/ (the wrk runner adds its own process to it).
export { cleanupAll, cpuMs, onCleanup, readProcStat, rssMb, rssPeakMb, spawnNode, stopping, taskCounters, threadCounters } from './lib/processes.mjs';
export * from './lib/client.mjs';
export * from './lib/stack.mjs';
export * from './lib/policies.mjs';
export * from './lib/generators.mjs';
export * from './lib/output.mjs';
export * from './lib/profile.mjs';
