// Wake-ups and CPU per decision of every process and thread a history decision touches (issue 26): on this machine a
// process that sleeps and is woken costs tens of µs of CPU, so at a steady rate CPU per decision follows wake-ups
// (voluntary context switches). Read from /proc before and after a run: each pdp's main thread and its other threads
// (by thread name), each PostgreSQL backend of the benchmark's database, PostgreSQL's own processes (walwriter,
// checkpointer, … — shared with whatever else uses the server), the open-loop generator (sampled while it runs), the
// kernel's threads, and the whole machine (/proc/stat: everything, other users of the machine included).
import { readFileSync, readdirSync } from 'node:fs';
import * as lib from '../lib.mjs';

const TICK_MS = 10; // USER_HZ 100: /proc/stat's CPU times are in ticks of 10 ms

/** Kernel threads (children of kthreadd, pid 2) summed: their CPU is nobody's process time (disk flushes, interrupts). */
function kernelThreads() {
  const sum = { cpuMs: 0, wakeups: 0, preempted: 0 };
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      if (pid !== '2' && lib.readProcStat(`/proc/${pid}/stat`).ppid !== 2) continue;
      const counters = lib.taskCounters(pid, pid);
      sum.cpuMs += counters.cpuMs;
      sum.wakeups += counters.wakeups;
      sum.preempted += counters.preempted;
    } catch {
      // gone
    }
  }
  return sum;
}

/** The whole machine: busy CPU ms (all but idle and iowait) and context switches, from /proc/stat. */
function machine() {
  const stat = readFileSync('/proc/stat', 'utf8');
  const cpu = stat.split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const busyTicks = cpu.reduce((sum, value, index) => (index === 3 || index === 4 ? sum : sum + value), 0);
  return { cpuMs: busyTicks * TICK_MS, switches: Number(/^ctxt (\d+)/m.exec(stat)?.[1] ?? 0) };
}

/**
 * PostgreSQL's processes of interest: the database's client backends, and the server's long-lived own (not the
 * autovacuum workers, which come and go: a pid reused meanwhile would count another process).
 */
async function postgresProcesses(observer, database) {
  const rows = (
    await observer.query(
      `SELECT pid, backend_type, datname, application_name FROM pg_stat_activity
        WHERE pid <> pg_backend_pid()
          AND (datname = $1 OR backend_type IN ('walwriter', 'checkpointer', 'background writer', 'autovacuum launcher', 'walsender'))`,
      [database],
    )
  ).rows;
  return rows.map((row) => ({ pid: row.pid, label: row.backend_type === 'client backend' ? `pg backend ${row.pid}` : `pg ${row.backend_type}` }));
}

/** The open-loop generator(s): node children of this process running open-loop.mjs. */
function generatorPids() {
  const pids = [];
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      if (lib.readProcStat(`/proc/${pid}/stat`).ppid !== process.pid) continue;
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('open-loop')) pids.push(pid);
    } catch {
      // gone
    }
  }
  return pids;
}

const sumThreads = (threads) =>
  [...threads.values()].reduce((sum, t) => ({ cpuMs: sum.cpuMs + t.cpuMs, wakeups: sum.wakeups + t.wakeups, preempted: sum.preempted + t.preempted }), {
    cpuMs: 0,
    wakeups: 0,
    preempted: 0,
  });

/**
 * Starts counting for `pdps` (from the bench stack: {pid}) and the PostgreSQL processes there are now (the
 * benchmark database's backends, the server's own); `stop(decisions)` resolves rows [what, µs CPU per decision, wake-ups per decision, preemptions per
 * decision] — pdp threads grouped per replica by thread name (the main thread apart), the backends one by one.
 */
export async function wakeupMeter(core, pdps) {
  const { Client } = lib.require('pg');
  const observer = new Client({ connectionString: core.database.url });
  await observer.connect();
  let pg;
  try {
    pg = await postgresProcesses(observer, core.database.name);
  } finally {
    await observer.end();
  }
  const before = {
    pdps: pdps.map((pdp) => lib.threadCounters(pdp.pid)),
    pg: pg.map((p) => ({ ...p, counters: sumThreads(lib.threadCounters(p.pid)) })),
    kernel: kernelThreads(),
    machine: machine(),
  };
  // The generator starts after this and ends before stop(): sample it while it runs, keep its first and last reading.
  const generator = new Map();
  const sampler = setInterval(() => {
    for (const pid of generatorPids()) {
      const counters = sumThreads(lib.threadCounters(pid));
      const seen = generator.get(pid);
      if (seen === undefined) generator.set(pid, { first: counters, last: counters, firstAt: performance.now(), lastAt: performance.now() });
      else Object.assign(seen, { last: counters, lastAt: performance.now() });
    }
  }, 250);
  const startedAt = performance.now();
  return {
    stop(decisions) {
      clearInterval(sampler);
      const elapsedMs = performance.now() - startedAt;
      const n = Math.max(1, decisions);
      const rows = [];
      const row = (what, delta, per = n) => rows.push([what, lib.fmt((delta.cpuMs * 1000) / per, 0), lib.fmt(delta.wakeups / per, 2), lib.fmt(delta.preempted / per, 2)]);
      const minus = (a, b) => ({ cpuMs: a.cpuMs - b.cpuMs, wakeups: a.wakeups - b.wakeups, preempted: a.preempted - b.preempted });
      const total = (label) => {
        const sum = { cpuMs: 0, wakeups: 0, preempted: 0 };
        return {
          add(delta) {
            sum.cpuMs += delta.cpuMs;
            sum.wakeups += delta.wakeups;
            sum.preempted += delta.preempted;
          },
          row: () => row(label, sum),
        };
      };
      const pdpTotal = total('sum: pdps, every thread');
      pdps.forEach((pdp, i) => {
        // The main thread, then the other threads one by one (node names them all "node"): the busiest three by
        // wake-ups apart — the decision log's writer, libuv's pool, V8's helpers — and the rest together.
        const others = [];
        for (const [tid, counters] of lib.threadCounters(pdp.pid)) {
          const delta = minus(counters, before.pdps[i].get(tid) ?? { cpuMs: 0, wakeups: 0, preempted: 0 });
          pdpTotal.add(delta);
          if (tid === String(pdp.pid)) row(`pdp ${i}: main thread`, delta);
          else others.push([tid, delta]);
        }
        others.sort((a, b) => b[1].wakeups - a[1].wakeups);
        for (const [tid, delta] of others.slice(0, 3)) row(`pdp ${i}: thread ${tid}`, delta);
        const rest = others.slice(3).reduce((sum, [, delta]) => ({ cpuMs: sum.cpuMs + delta.cpuMs, wakeups: sum.wakeups + delta.wakeups, preempted: sum.preempted + delta.preempted }), {
          cpuMs: 0,
          wakeups: 0,
          preempted: 0,
        });
        row(`pdp ${i}: ${others.length - 3} other threads`, rest);
      });
      pdpTotal.row();
      const backends = total('sum: PostgreSQL backends of the database');
      const server = total('sum: PostgreSQL server processes (shared)');
      for (const p of before.pg) {
        const delta = minus(sumThreads(lib.threadCounters(p.pid)), p.counters);
        (p.label.startsWith('pg backend') ? backends : server).add(delta);
        // Idle backends (the pool's spare connections) are left out.
        if (delta.wakeups / n >= 0.005 || (delta.cpuMs * 1000) / n >= 1) row(p.label, delta);
      }
      backends.row();
      server.row();
      for (const [pid, seen] of generator) {
        // Only what happened between its first and last reading, per decision due in that time.
        const due = ((seen.lastAt - seen.firstAt) / 1000) * (decisions / Math.max(1, elapsedMs / 1000));
        if (due > 0) row(`generator ${pid} (sampled while running)`, minus(seen.last, seen.first), due);
      }
      row('kernel threads (all)', minus(kernelThreads(), before.kernel));
      const m = machine();
      rows.push(['whole machine (everything running)', lib.fmt(((m.cpuMs - before.machine.cpuMs) * 1000) / n, 0), lib.fmt((m.switches - before.machine.switches) / n, 2), '']);
      return rows;
    },
  };
}

export const WAKEUP_HEADER = ['process / thread', 'µs CPU', 'wake-ups', 'preemptions'];
