// Processes that are always stopped (cleanup on success, failure and signals) and what they cost (/proc).
import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from './base.mjs';

// ---------------------------------------------------------------------------------------------
// Cleanup: every benchmark registers what it started; everything is undone on success, failure,
// SIGINT and SIGTERM. Child processes still alive when this process exits get SIGKILL.

export const children = new Set();
const cleanups = [];

/** Registers an async undo step (run last-in first-out); returns a function that runs it now. */
export function onCleanup(step) {
  const entry = { step, done: false };
  cleanups.push(entry);
  return async () => {
    if (entry.done) return;
    entry.done = true;
    await step();
  };
}

export async function cleanupAll() {
  while (cleanups.length > 0) {
    const entry = cleanups.pop();
    if (entry.done) continue;
    entry.done = true;
    try {
      await entry.step();
    } catch (error) {
      console.error(`cleanup: ${error?.message ?? error}`);
    }
  }
}

let signalled = false;
/** True once SIGINT/SIGTERM arrived: start nothing new. */
export const stopping = () => signalled;
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    if (signalled) return;
    signalled = true;
    console.error(`\n${signal}: stopping everything this benchmark started...`);
    const force = setTimeout(() => process.exit(130), 20_000);
    force.unref();
    cleanupAll().finally(() => process.exit(130));
  });
}
process.on('exit', () => {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) {
      try {
        child.kill('SIGKILL');
      } catch {
        // gone already
      }
    }
  }
});

// ---------------------------------------------------------------------------------------------
// Processes

const TAIL_BYTES = 16 * 1024;

/**
 * Spawns `node [nodeArgs] file [args]`. stdout goes to /dev/null by default (`stdout: 'ignore'`),
 * so whatever the child logs costs it the real write but costs us nothing; `'pipe'` keeps a
 * bounded tail. BENCH_LOG_DIR=<dir> sends that /dev/null output to a file there instead (debugging).
 * stderr is always piped into a bounded tail for failure messages.
 */
export function spawnNode(file, { args = [], nodeArgs = [], env = {}, stdout = 'ignore', label = path.basename(file) } = {}) {
  let outFd;
  let stdoutSpec = stdout;
  if (process.env.BENCH_LOG_DIR && stdout === 'ignore') {
    outFd = openSync(path.join(process.env.BENCH_LOG_DIR, `${label.replace(/[^\w.-]/g, '_')}-${Date.now()}.log`), 'a');
    stdoutSpec = outFd;
  }
  const child = spawn(process.execPath, [...nodeArgs, file, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', stdoutSpec, 'pipe'],
  });
  if (outFd !== undefined) closeSync(outFd);
  children.add(child);
  let tail = '';
  const keep = (chunk) => {
    tail += chunk.toString();
    if (tail.length > TAIL_BYTES) tail = tail.slice(-TAIL_BYTES);
  };
  child.stderr.on('data', keep);
  child.stdout?.on('data', keep);
  // 'close', not 'exit' (as in runWrk): the load generators' figures are their last output, read after they end.
  const exited = new Promise((resolve) =>
    child.once('close', (code, signal) => {
      children.delete(child);
      resolve(code ?? signal);
    }),
  );
  const alive = () => child.exitCode === null && child.signalCode === null;
  const endWith = async (signal, graceMs) => {
    if (alive()) child.kill(signal);
    const timer = setTimeout(() => alive() && child.kill('SIGKILL'), graceMs);
    const result = await exited;
    clearTimeout(timer);
    return result;
  };
  return {
    child,
    pid: child.pid,
    label,
    exited,
    alive,
    tail: () => tail,
    /** SIGTERM (graceful), SIGKILL after `graceMs`. */
    stop: (graceMs = 15_000) => endWith('SIGTERM', graceMs),
    kill: () => endWith('SIGKILL', 5_000),
  };
}

const procStatusMb = (pid, field) => {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = new RegExp(`^${field}:\\s+(\\d+)\\s+kB`, 'm').exec(status);
  return match ? Number(match[1]) / 1024 : NaN;
};
/** Resident set size of a process in MB (VmRSS of /proc/<pid>/status). */
export const rssMb = (pid) => procStatusMb(pid, 'VmRSS');
const TICK_MS = 10; // CLK_TCK is 100 on Linux
/**
 * A /proc stat file (`/proc/<pid>/stat` or `/proc/<pid>/task/<tid>/stat`): the command, the parent pid and the CPU
 * time used (utime + stime) in ms. The fields are counted from the command's closing parenthesis, since a command may
 * hold spaces and parentheses of its own.
 */
export function readProcStat(file) {
  const text = readFileSync(file, 'utf8');
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return { comm: text.slice(text.indexOf('(') + 1, text.lastIndexOf(')')), ppid: Number(fields[1]), cpuMs: (Number(fields[11]) + Number(fields[12])) * TICK_MS };
}
const statCpuMs = (file) => readProcStat(file).cpuMs;
/**
 * CPU time a process used so far, in ms: `total` (every thread, live or ended) and `main` (its main
 * thread; the rest is the log's writer thread, GC helpers and the libuv pool).
 */
export function cpuMs(pid) {
  const total = statCpuMs(`/proc/${pid}/stat`);
  const main = statCpuMs(`/proc/${pid}/task/${pid}/stat`);
  return { total, main, others: total - main };
}

/** One thread's counters so far: command, CPU ms, wake-ups (voluntary context switches) and preemptions (involuntary ones). */
export function taskCounters(pid, tid) {
  const base = `/proc/${pid}/task/${tid}`;
  const { comm, cpuMs } = readProcStat(`${base}/stat`);
  const status = readFileSync(`${base}/status`, 'utf8');
  const wakeups = Number(/^voluntary_ctxt_switches:\s+(\d+)$/m.exec(status)?.[1] ?? 0);
  const preempted = Number(/^nonvoluntary_ctxt_switches:\s+(\d+)$/m.exec(status)?.[1] ?? 0);
  return { comm, cpuMs, wakeups, preempted };
}

/** Counters of every thread of `pid`: Map tid → {comm, cpuMs, wakeups, preempted}; empty when it is gone. */
export function threadCounters(pid) {
  const threads = new Map();
  let tids;
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return threads;
  }
  for (const tid of tids) {
    try {
      threads.set(tid, taskCounters(pid, tid));
    } catch {
      // the thread ended meanwhile
    }
  }
  return threads;
}

/** Peak resident set size so far in MB (VmHWM). */
export const rssPeakMb = (pid) => procStatusMb(pid, 'VmHWM');
