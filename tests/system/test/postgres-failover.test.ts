import { writeFileSync } from 'node:fs';
import { runPostgresFailover } from './cluster/postgres-failover-run';

/**
 * Issue 23: the PostgreSQL primary dies under load and its synchronous standby takes over (pg_auto_failover);
 * cluster/postgres-failover-run.ts says what is checked. FAILOVER_REPORT: where the figures go (the benchmark).
 */
describe('PostgreSQL failover under load', () => {
  it(
    'keeps pure decisions answering, loses no acknowledged history event, execute or change, and recovers by itself',
    async () => {
      const report = await runPostgresFailover({ log: (line) => process.stdout.write(`pg-failover: ${line}\n`) });
      process.stdout.write(`figures: ${JSON.stringify(report.figures)}\nlongest gaps (ms): ${JSON.stringify(report.longestGapMs)}\nerrors: ${JSON.stringify(report.errors)}\n`);
      if (process.env.FAILOVER_REPORT) writeFileSync(process.env.FAILOVER_REPORT, JSON.stringify(report, null, 2));
      expect(report.violations).toEqual([]);
      // The run did what it claims: history decisions were recorded, executes required and changes acknowledged.
      for (const figure of ['pure decisions', 'history decisions allowed (recorded)', 'notify decisions (execute required)', 'changes acknowledged', 'tokens issued']) {
        expect(report.figures[figure]).toBeGreaterThan(0);
      }
    },
    300_000,
  );
});
