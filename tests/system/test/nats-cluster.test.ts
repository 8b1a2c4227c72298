import { writeFileSync } from 'node:fs';
import { runNatsLeaderKill } from './cluster/nats-leader-kill';

/**
 * Issue 23: the change stream's leader in a three-node NATS cluster dies while deploys and decisions run
 * (cluster/nats-leader-kill.ts says what is checked). `npm run bench -- --only nats-cluster` runs the same with more
 * changes (CLUSTER_CHANGES) and writes the propagation figures to CLUSTER_REPORT.
 */
const CHANGES = Number(process.env.CLUSTER_CHANGES ?? 15);

describe('NATS cluster: the stream leader dies under load', () => {
  it(
    'loses no change, applies none twice, and every pdp and every copy of the stream reaches the last revision',
    async () => {
      const report = await runNatsLeaderKill({ changesPerPhase: CHANGES, log: (line) => process.stdout.write(`nats-cluster: ${line}\n`) });
      if (process.env.CLUSTER_REPORT) writeFileSync(process.env.CLUSTER_REPORT, JSON.stringify(report, null, 2));
      expect(report.violations).toEqual([]);
      // Three servers: the stream keeps three copies by default, and the kill moved its leadership elsewhere.
      expect(report.streamReplicas).toBe(3);
      expect(report.newLeader).not.toBe(report.killedLeader);
      // Every phase's changes were acknowledged and reached every pdp, and decisions ran throughout.
      for (const phase of ['before', 'during', 'after'] as const) expect(report.propagation[phase]).toHaveLength(CHANGES);
      expect(report.lastRevision).toBeGreaterThanOrEqual(3 * CHANGES);
      expect(report.decisions).toBeGreaterThan(0);
    },
    240_000,
  );
});
