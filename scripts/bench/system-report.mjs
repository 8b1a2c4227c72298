// Runs one system test (tests/system) as its own jest process with extra environment and reads the JSON report it
// writes to the file named by `reportVariable`: how the chaos and cluster benchmarks reuse the tests' runs.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as lib from './lib.mjs';

export async function runSystemTest(testFile, env, reportVariable) {
  const dir = mkdtempSync(path.join(tmpdir(), 'custos-system-report-'));
  const reportFile = path.join(dir, 'report.json');
  const code = await new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(lib.ROOT, 'node_modules', 'jest', 'bin', 'jest.js'), testFile], {
      cwd: path.join(lib.ROOT, 'tests', 'system'),
      env: { ...process.env, ...env, [reportVariable]: reportFile },
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
  try {
    return JSON.parse(readFileSync(reportFile, 'utf8'));
  } catch {
    throw new Error(`${testFile} exited with ${code} and wrote no report`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
