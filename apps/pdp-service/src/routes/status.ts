import { jsonResponse, problemResponse } from '@custos/service-kit';
import type { FollowerStatus } from '../policy-set/follower';
import { pdpRoute } from './context';

/** GET /status: where this replica stands. No token needed, so no policy content and no secrets. */
export interface ReplicaStatus extends FollowerStatus {
  replica: string;
  natsConnected: boolean;
}

export const replicaStatusSchema = {
  type: 'object',
  required: ['replica', 'ready', 'revision', 'policies', 'lastSyncAt', 'lastChangeAt', 'natsConnected'],
  properties: {
    replica: { type: 'string', description: 'PDP_REPLICA_ID (default host:port)' },
    ready: { type: 'boolean', description: 'true once the first snapshot is active' },
    revision: { type: ['integer', 'null'], description: 'revision of the active policy set' },
    policies: { type: 'integer', description: 'number of deployed policies in the active set' },
    timers: { type: 'integer', description: 'number of deployed timers in the active set' },
    components: { type: 'integer', description: 'number of registered PIP and PXP components in the active set' },
    lastSyncAt: { type: ['string', 'null'], format: 'date-time', description: 'when the last snapshot arrived' },
    lastChangeAt: { type: ['string', 'null'], format: 'date-time', description: 'when the last change message arrived' },
    lastAppliedAt: { type: ['string', 'null'], format: 'date-time', description: 'when the active set was last replaced' },
    lagMs: { type: ['integer', 'null'], description: 'arrival to application of the last applied change message' },
    pendingChanges: { type: 'integer', description: 'change messages received and not applied yet' },
    natsConnected: { type: 'boolean' },
  },
} as const;

export function replicaStatus(replica: string, status: FollowerStatus, natsConnected: boolean): ReplicaStatus {
  return { replica, ...status, natsConnected };
}

/** GET /status: where this replica stands; no token, no policy content. */
export const statusRoute = pdpRoute({
  method: 'get',
  path: '/status',
  operationId: 'status',
  summary: 'Where this replica stands',
  description: 'Replica id, readiness, active revision and size of the set, last snapshot and change times, lag, NATS connection.',
  responses: {
    200: jsonResponse('the status', { $ref: '#/components/schemas/ReplicaStatus' }),
    405: problemResponse('any method other than GET or HEAD'),
  },
  handler: (_req, res, { deps }) => {
    res.setHeader('Cache-Control', 'no-store');
    res.json(deps.current());
  },
});
