// `--profile` of the HTTP benchmark: a CPU profile of a pdp under the benchmark's load, summarised.
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as lib from '../lib.mjs';

/** A pdp started with --cpu-prof, the same load for `seconds`, a graceful stop, and a summary. */
export async function profilePdp(core, { headers, body, connections, seconds }) {
  const dir = mkdtempSync(path.join(tmpdir(), 'custos-pdp-prof-'));
  lib.log(`profiling a pdp under load (${seconds} s) into ${dir}`);
  const pdp = await core.startPdp({ label: 'pdp-http-prof', nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${dir}`] });
  const fromUs = lib.hrtimeUs();
  const result = await lib.runCheapLoad({ url: `${pdp.url}/event`, method: 'POST', headers, body, connections, duration: seconds, title: 'profile' });
  const toUs = lib.hrtimeUs();
  await core.stopPdp(pdp);
  // CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile: thread 0 is the main thread (the log's worker writes one too).
  const file = readdirSync(dir).find((f) => /\.\d+\.0\.\d+\.cpuprofile$/.test(f));
  if (!file) return { tables: [], note: `no CPU profile was written in ${dir}` };
  // Only the samples taken while the load ran: start-up (snapshot compile) is the scale benchmark's.
  const summary = lib.summariseCpuProfile(path.join(dir, file), { fromUs, toUs });
  if (summary.totalMs < 0.2 * (toUs - fromUs) / 1000) {
    return { tables: [], note: `the CPU profile in ${dir} holds too few samples in the load window (${lib.fmt(summary.totalMs)} ms); clocks differ?` };
  }
  return {
    tables: lib.profileTables(summary, `CPU profile of the pdp under the same load (${lib.fmt(result.requestsPerSecond)} req/s while profiled)`, {
      functions: 20,
      modules: 15,
    }),
    note: `CPU profile: ${path.join(dir, file)} (open in Chrome DevTools → Performance, or speedscope).`,
  };
}
