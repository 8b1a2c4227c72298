// Issue 14 — the chaos run, long (only with `--chaos [minutes]`; default 10, --quick 1).
// The system test tests/system/test/chaos.test.ts with CHAOS_SECONDS set: 3 pdps, 2 paps and auth on a private
// PostgreSQL cluster and a private NATS, under decisions (pure, history-limited, with PXP executes to a stub PXP)
// and a deploy/revoke every 300 ms, while pdps and paps are killed with SIGKILL and NATS and PostgreSQL restarted,
// one fault at a time, again and again. Afterwards every acknowledged change must be on every replica, every
// decision must agree with its revision and never go back, no limit may be overshot, every execute of an answered
// decision must have reached the PXP, every due timer tick must have fired once, and pdp memory must stay bounded.
// Reported: faults, decisions by kind, errors by kind, and the number of lost and wrong outcomes (must be 0).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as lib from './lib.mjs';

export const name = 'chaos';
export const title = 'Chaos — kill -9 pdps and paps, restart NATS and PostgreSQL, under load';

export async function run(options = {}) {
  const minutes = options.chaosMinutes ?? (options.quick ? 1 : 10);
  const seconds = Math.max(20, Math.round(minutes * 60));
  const dir = mkdtempSync(path.join(tmpdir(), 'custos-chaos-'));
  const reportFile = path.join(dir, 'report.json');
  const systemTests = path.join(lib.ROOT, 'tests', 'system');
  lib.log(`${seconds} s of faults (tests/system/test/chaos.test.ts with CHAOS_SECONDS=${seconds})`);
  const code = await new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(lib.ROOT, 'node_modules', 'jest', 'bin', 'jest.js'), 'test/chaos.test.ts'], {
      cwd: systemTests,
      env: { ...process.env, CHAOS_SECONDS: String(seconds), CHAOS_REPORT: reportFile },
      stdio: 'inherit',
    });
    const stop = lib.onCleanup(async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    });
    child.once('error', reject);
    child.once('exit', (exitCode, signal) => {
      void stop();
      resolve(exitCode ?? signal);
    });
  });
  let report;
  try {
    report = JSON.parse(readFileSync(reportFile, 'utf8'));
  } catch {
    throw new Error(`the chaos test exited with ${code} and wrote no report`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const lost = Number(report.figures.lost ?? NaN);
  const wrong = Number(report.figures.wrong ?? NaN);
  return {
    name,
    title,
    tables: [
      { caption: 'Figures', header: ['figure', 'value'], rows: Object.entries(report.figures).map(([k, v]) => [k, String(v)]) },
      {
        caption: 'Errors clients saw, by kind (requests to a process while it was killed or PostgreSQL was down)',
        header: ['kind', 'count'],
        rows: Object.entries(report.errors).map(([k, v]) => [k, String(v)]),
      },
    ],
    targets: [
      { name: 'lost (acknowledged changes, executes, timer ticks)', value: String(lost), target: '0', ok: lost === 0 },
      { name: 'wrong (revision backwards, decision ≠ revision, limit overshot, crash, memory)', value: String(wrong), target: '0', ok: wrong === 0 },
    ],
    notes: report.violations.length === 0 ? ['no violation'] : report.violations.map((v) => `violation: ${String(v).slice(0, 500)}`),
    figures: report.figures,
  };
}

await lib.runStandalone(import.meta.url, run);
