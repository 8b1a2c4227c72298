import { rawRoutesFor, routesFor } from '@custos/service-kit';
import type { BatchHandler } from './events';
import type { DecisionHandler } from './event';
import type { ExecutionRouteDeps } from './executions';
import type { ReplicaStatus } from './status';

/** What the pdp's route handlers run: the decision handlers made once in createApp, and the rest's parts. */
export interface PdpRouteDeps {
  decide: DecisionHandler;
  batch: BatchHandler;
  authzen: { evaluation: BatchHandler; evaluations: BatchHandler };
  /** Where this replica stands right now. */
  current: () => ReplicaStatus;
  /** `PDP_PUBLIC_URL`, for the AuthZEN metadata. */
  publicUrl?: string;
  /** The stored PXP executes; the `/executions` routes are mounted only with them. */
  executions?: ExecutionRouteDeps;
}

export const pdpRoute = routesFor<PdpRouteDeps>();
export const pdpRawRoute = rawRoutesFor<PdpRouteDeps>();
