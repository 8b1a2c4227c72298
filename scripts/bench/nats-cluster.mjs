// Issue 23 — propagation while the change stream's NATS leader dies. The system test
// tests/system/test/nats-cluster.test.ts with CLUSTER_CHANGES set: pap and 3 pdps on a three-node JetStream cluster
// (the stream on all three); a policy deployed and revoked one change after another while 4 workers ask the pdps for
// decisions. Each change is timed from pap's answer until every pdp has decided by it (a decision sent with
// Min-Policy-Revision, as the propagation benchmark does): before the kill, right after SIGKILL of the stream's leader
// (a new one is elected meanwhile), and after the killed server came back and caught up. Nothing may be lost or
// applied twice (the test checks the stream, every pdp and every decision).
import * as lib from './lib.mjs';
import { runSystemTest } from './system-report.mjs';

export const name = 'nats-cluster';
export const title = 'NATS cluster — propagation before, during and after the stream leader is killed';

export async function run(options = {}) {
  const changes = options.quick ? 20 : 100;
  const report = await runSystemTest('test/nats-cluster.test.ts', { CLUSTER_CHANGES: String(changes) }, 'CLUSTER_REPORT');
  const p = (values, q) => lib.fmt(lib.percentile(values, q));
  const rows = [];
  for (const phase of ['before', 'during', 'after']) {
    rows.push([`${phase}: pap answer (request → answer)`, p(report.papAnswer[phase], 50), p(report.papAnswer[phase], 99), p(report.papAnswer[phase], 100)]);
    rows.push([`${phase}: pap answer → all 3 pdps decided`, p(report.propagation[phase], 50), p(report.propagation[phase], 99), p(report.propagation[phase], 100)]);
  }
  const violations = report.violations.length;
  return {
    name,
    title,
    tables: [
      {
        caption: `${changes} changes per phase, one at a time; stream on ${report.streamReplicas} servers; leader ${report.killedLeader} killed, ${report.newLeader} took over; ms`,
        header: ['step', 'p50', 'p99', 'max'],
        rows,
      },
      { caption: 'Errors the decision workers saw, by kind', header: ['kind', 'count'], rows: Object.entries(report.errors).map(([k, v]) => [k, String(v)]) },
    ],
    targets: [
      lib.target('propagation p99 right after the kill', `${p(report.propagation.during, 99)} ms`, '–'),
      lib.target('propagation p99 after the kill (server back)', `${p(report.propagation.after, 99)} ms`, '–'),
      lib.target('lost, duplicated or wrong', String(violations), '0', violations === 0),
    ],
    notes: [`${report.decisions} decisions by the workers meanwhile`, ...report.violations.slice(0, 5)],
    figures: { propagation: report.propagation, papAnswer: report.papAnswer, decisions: report.decisions },
  };
}

await lib.runStandalone(import.meta.url, run);
