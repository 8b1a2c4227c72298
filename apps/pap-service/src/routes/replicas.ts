import type { RequestHandler } from 'express';
import { SCOPES } from '@custos/contracts';
import { requireScope, type TokenVerifier } from '@custos/service-kit';
import type { Pool } from 'pg';
import type { ReplicaDirectory } from '../replicas/replica-directory';
import { currentRevision } from '../store/revisions';

/**
 * `GET /ws/replicas` (scope `policy:read`): pap's revision of the deployed set and every pdp replica it has heard
 * from, with the revision it has active and how many revisions it is behind. Replica names and revisions only: no
 * solution's data.
 */
export function replicasRoute(pool: Pool, verifier: TokenVerifier, directory: ReplicaDirectory | undefined): RequestHandler[] {
  return [
    requireScope(verifier, SCOPES.policyRead),
    async (_req, res) => {
      const revision = await currentRevision(pool);
      const replicas = (directory?.list() ?? []).map(({ report, receivedAt, stale }) => ({
        replica: report.replica,
        ready: report.ready,
        revision: report.revision,
        lag: report.revision === null ? null : Math.max(0, revision - report.revision),
        lagMs: report.lagMs,
        pendingChanges: report.pendingChanges,
        natsConnected: report.natsConnected,
        lastSeenAt: new Date(receivedAt).toISOString(),
        stale,
      }));
      res.setHeader('Cache-Control', 'no-store');
      res.json({ revision, replicas });
    },
  ];
}
