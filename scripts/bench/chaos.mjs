// Issue 14 — the chaos run, long (only with `--chaos [minutes]`; default 10, --quick 1), and issue 23's clustered form.
// The system test tests/system/test/chaos.test.ts with CHAOS_SECONDS set: 3 pdps, 2 paps and auth on a private
// PostgreSQL cluster and a private NATS, under decisions (pure, history-limited, with PXP executes to a stub PXP)
// and a deploy/revoke every 300 ms, while pdps and paps are killed with SIGKILL and NATS and PostgreSQL restarted,
// one fault at a time, again and again. Then the same with CHAOS_CLUSTER=1 for as long: a three-node NATS cluster and
// pg_auto_failover (primary + synchronous standby), where the faults kill the change stream's NATS leader and the
// PostgreSQL primary (the standby takes over; the old primary comes back as its standby) beside the pdp and pap kills.
// Afterwards every acknowledged change must be on every replica, every decision must agree with its revision and
// never go back, no limit may be overshot, every execute of an answered decision must have reached the PXP, every due
// timer tick must have fired once, and pdp memory must stay bounded.
// Reported: faults, decisions by kind, errors by kind, the longest gap per service, and lost and wrong (must be 0).
import * as lib from './lib.mjs';
import { runSystemTest } from './system-report.mjs';

export const name = 'chaos';
export const title = 'Chaos — kill -9 pdps and paps, restart NATS and PostgreSQL; then kill NATS leaders and fail PostgreSQL over, under load';

export async function run(options = {}) {
  const minutes = options.chaosMinutes ?? (options.quick ? 1 : 10);
  const seconds = Math.max(20, Math.round(minutes * 60));
  const forms = [
    { label: 'one NATS server, one PostgreSQL', cluster: '0' },
    { label: 'three-node NATS cluster, pg_auto_failover', cluster: '1' },
  ];
  const tables = [];
  const targets = [];
  const notes = [];
  const figures = {};
  for (const form of forms) {
    lib.log(`${form.label}: ${seconds} s of faults (tests/system/test/chaos.test.ts with CHAOS_SECONDS=${seconds}, CHAOS_CLUSTER=${form.cluster})`);
    const report = await runSystemTest('test/chaos.test.ts', { CHAOS_SECONDS: String(seconds), CHAOS_CLUSTER: form.cluster }, 'CHAOS_REPORT');
    const lost = Number(report.figures.lost ?? NaN);
    const wrong = Number(report.figures.wrong ?? NaN);
    tables.push(
      { caption: `${form.label}: figures`, header: ['figure', 'value'], rows: Object.entries(report.figures).map(([k, v]) => [k, String(v)]) },
      {
        caption: `${form.label}: errors clients saw, by kind (requests to a process while it was killed, or while PostgreSQL was down or failing over)`,
        header: ['kind', 'count'],
        rows: Object.entries(report.errors).map(([k, v]) => [k, String(v)]),
      },
    );
    targets.push(
      { name: `${form.label}: lost (acknowledged changes, executes, timer ticks)`, value: String(lost), target: '0', ok: lost === 0 },
      { name: `${form.label}: wrong (revision backwards, decision ≠ revision, limit overshot, crash, memory)`, value: String(wrong), target: '0', ok: wrong === 0 },
    );
    notes.push(...(report.violations.length === 0 ? [`${form.label}: no violation`] : report.violations.map((v) => `${form.label}: violation: ${String(v).slice(0, 500)}`)));
    figures[form.cluster === '1' ? 'cluster' : 'single'] = report.figures;
  }
  return { name, title, tables, targets, notes, figures };
}

await lib.runStandalone(import.meta.url, run);
