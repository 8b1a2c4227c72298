// CPU profiles (node --cpu-prof): self time by function and by module.
import { readFileSync } from 'node:fs';
import { ROOT } from './base.mjs';
import { fmt, median } from './output.mjs';

// ---------------------------------------------------------------------------------------------
// CPU profiles (node --cpu-prof)

/** CLOCK_MONOTONIC in µs, the clock of V8's profile timestamps on Linux. */
export const hrtimeUs = () => Number(process.hrtime.bigint() / 1000n);

/** Where a profiled function lives: a package, a workspace, a node: module, or a VM category. */
function moduleOf(url, functionName) {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  const clean = url.replace(/^file:\/\//, '');
  const nm = clean.lastIndexOf('/node_modules/');
  if (nm !== -1) {
    const parts = clean.slice(nm + 14).split('/');
    return parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
  }
  const workspace = /\/(apps|packages)\/([^/]+)\//.exec(clean);
  if (workspace) return workspace[1] === 'apps' ? workspace[2] : `@custos/${workspace[2]}`;
  if (clean.startsWith('node:')) return clean.split('/').slice(0, 2).join('/');
  return clean;
}

const shortUrl = (url) =>
  url.replace(/^file:\/\//, '').replace(`${ROOT}/`, '').replace(/^.*\/node_modules\//, '');

/**
 * Self time of a .cpuprofile by function and by module, largest first:
 * {functions: [[ms, %, name, where]], modules: [[ms, %, module]], totalMs}.
 */
export function summariseCpuProfile(file, { fromUs = -Infinity, toUs = Infinity } = {}) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map();
  // Sample times are CLOCK_MONOTONIC µs, the clock of process.hrtime (see hrtimeUs), so a window
  // measured in this process selects the samples of the load alone (not start-up compilation).
  // Every sample counts the same (the median sampling interval): on a busy machine a process that
  // was descheduled would otherwise charge the whole gap to whatever it ran last.
  const interval = median(profile.timeDeltas.filter((d) => d > 0));
  let at = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    at += profile.timeDeltas[i] ?? 0;
    if (at < fromUs || at > toUs) continue;
    self.set(profile.samples[i], (self.get(profile.samples[i]) ?? 0) + interval);
  }
  const totalUs = [...self.values()].reduce((a, b) => a + b, 0);
  const functions = new Map();
  const modules = new Map();
  for (const [id, us] of self) {
    const { functionName, url, lineNumber } = byId.get(id).callFrame;
    const fname = functionName || '(anonymous)';
    const where = url ? `${shortUrl(url)}:${lineNumber + 1}` : '';
    const key = `${fname}\u0000${where}`;
    functions.set(key, (functions.get(key) ?? 0) + us);
    const module = moduleOf(url, fname);
    modules.set(module, (modules.get(module) ?? 0) + us);
  }
  const pct = (us) => `${fmt((us / totalUs) * 100, 1)}`;
  return {
    totalMs: totalUs / 1000,
    functions: [...functions]
      .sort((a, b) => b[1] - a[1])
      .map(([key, us]) => {
        const [fname, where] = key.split('\u0000');
        return [fmt(us / 1000, 0), pct(us), fname, where];
      }),
    modules: [...modules].sort((a, b) => b[1] - a[1]).map(([module, us]) => [fmt(us / 1000, 0), pct(us), module]),
  };
}

/**
 * The two tables of a summary as a benchmark prints them: the `functions` largest self times by function, under
 * `what` (which process, under which load), and the `modules` largest by module.
 */
export const profileTables = (summary, what, { functions, modules }) => [
  { caption: `${what}: top self time by function`, header: ['self ms', 'self %', 'function', 'where'], rows: summary.functions.slice(0, functions) },
  { caption: 'self time by module', header: ['self ms', 'self %', 'module'], rows: summary.modules.slice(0, modules) },
];
