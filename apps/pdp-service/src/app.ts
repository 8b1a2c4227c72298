import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Express } from 'express';
import { createServiceApp, fastPath, mountRoutes, requireScope, type Logger, type TokenVerifier, type Tracing } from '@custos/service-kit';
import type { AuthZenDefault } from '@custos/contracts';
import type { DefaultDecision } from './config';
import { Admission, NO_LIMITS, registerAdmissionMetrics, type AdmissionLimits } from './admission';
import { Decider } from './decision/decider';
import { SERVICE_NAME, type PdpMetrics } from './metrics';
import { openapi } from './openapi';
import type { FollowerStatus } from './policy-set/follower';
import { createAuthZenHandlers } from './routes/authzen';
import type { PdpRouteDeps } from './routes/context';
import type { PolicySource } from './routes/decision-request';
import { createDecisionHandler } from './routes/event';
import { createEventsHandler } from './routes/events';
import type { ExecutionRouteDeps } from './routes/executions';
import { replicaStatus } from './routes/status';
import { EXECUTION_ROUTES, PDP_ROUTES } from './routes/table';

export interface AppDeps {
  logger: Logger;
  metrics: PdpMetrics;
  verifier: TokenVerifier;
  /** The policy-set follower (or anything that answers like it). */
  policies: PolicySource & { status(): FollowerStatus };
  natsConnected: () => boolean;
  replicaId: string;
  defaultDecision: DefaultDecision;
  /** The AuthZEN answer for an action no deployed mechanism reacts to (`PDP_AUTHZEN_DEFAULT`); `deny` when absent. */
  authzenDefault?: AuthZenDefault;
  timeZone: string;
  /** Min-Policy-Revision wait; api.md §3 says 2 s, tests shorten it. */
  minRevisionWaitMs?: number;
  /** Decides with the event history, PIPs and PXPs; without it, a decider without ports. */
  decider?: Decider;
  /** The pdp's public base URL for the AuthZEN metadata (`PDP_PUBLIC_URL`); derived from each request when absent. */
  publicUrl?: string;
  /** Per-solution admission of the decision routes (PDP_SOLUTION_*); no limit when absent. */
  admission?: AdmissionLimits;
  /** The stored PXP executes (`/executions`); the routes are absent without it. */
  executions?: ExecutionRouteDeps;
  /** A span for each request of the other routes (service-kit `mountRoutes`); the decider traces decisions. */
  tracing?: Tracing;
}

/** A node:http request listener; `app` is the express app behind everything but the decision routes. */
export type PdpListener = RequestListener & { app: Express };

export { DECISION_PATH, EXPLAIN_PATH } from './routes/decision-routes';

/**
 * The pdp's HTTP surface, from its route table: the decision routes (POST /event, /event/explain, /events and the
 * AuthZEN evaluations) are answered on bare node:http when their path matches literally (express costs about 6× a
 * plain handler here, toolchain-notes.md); everything else, including other spellings of those paths and other
 * methods on them (405), goes through the express app from service-kit, where the same table is mounted.
 */
export function createApp(deps: AppDeps): PdpListener {
  // One decider for every decision route, so batches and single events share history, PIPs and PXPs.
  const decider = deps.decider ?? new Decider({ defaultDecision: deps.defaultDecision, timeZone: deps.timeZone, logger: deps.logger });
  const admission = new Admission(deps.admission ?? NO_LIMITS);
  registerAdmissionMetrics(deps.metrics.registry, admission);
  const decisions = createDecisionHandler({ ...deps, decider, admission });
  const batch = createEventsHandler({ ...deps, decider, admission });
  const authzen = createAuthZenHandlers({ ...deps, decider, admission });
  const current = () => replicaStatus(deps.replicaId, deps.policies.status(), deps.natsConnected());

  const service = createServiceApp({
    service: SERVICE_NAME,
    logger: deps.logger,
    metrics: deps.metrics,
    openapi,
    readiness: () => {
      const status = current();
      return { ready: status.ready, revision: status.revision, replica: status.replica, natsConnected: status.natsConnected };
    },
  });
  const routeDeps: PdpRouteDeps = {
    decide: decisions,
    batch,
    authzen,
    current,
    ...(deps.publicUrl === undefined ? {} : { publicUrl: deps.publicUrl }),
    ...(deps.executions ? { executions: deps.executions } : {}),
  };
  const routes = deps.executions ? [...PDP_ROUTES, ...EXECUTION_ROUTES] : PDP_ROUTES;
  mountRoutes(service, routes, routeDeps, {
    authorize: (scope) => requireScope(deps.verifier, scope),
    ...(deps.tracing === undefined ? {} : { tracing: deps.tracing }),
  });
  const app = service.finish();
  const fast = fastPath(routes, routeDeps);

  const listener = (req: IncomingMessage, res: ServerResponse) => {
    if (!fast(req, res)) app(req, res);
  };
  return Object.assign(listener, { app });
}
