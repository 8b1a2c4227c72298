import { SCOPES, replicasAnswerSchema, type ReplicasAnswer } from '@custos/contracts';
import { jsonResponse } from '@custos/service-kit';
import { currentRevision } from '../store/revisions';
import { papRoute } from './context';
import { common } from './responses';

/**
 * `GET /ws/replicas` (scope `policy:read`): pap's revision of the deployed set and every pdp replica it has heard
 * from, with the revision it has active and how many revisions it is behind. Replica names and revisions only: no
 * solution's data.
 */
export const replicasRoute = papRoute({
  method: 'get',
  path: '/ws/replicas',
  summary: 'the pdp replicas and their active revisions',
  description:
    'Every replica that reported over NATS in the last hour, by name, with how far it is behind pap; one silent for over ' +
    'three report intervals is `stale` (stopped or cut off) and stays listed with its `lastSeenAt` until the hour is up.',
  scope: SCOPES.policyRead,
  responses: { 200: jsonResponse("pap's revision and the replicas", replicasAnswerSchema), ...common },
  handler: async (_req, res, { deps }) => {
    const revision = await currentRevision(deps.pool);
    const replicas = (deps.replicas?.list() ?? []).map(({ report, receivedAt, stale }) => ({
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
    const answer: ReplicasAnswer = { revision, replicas };
    res.json(answer);
  },
});
