import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Express } from 'express';
import { createServiceApp, type Logger, type TokenVerifier } from '@custos/service-kit';
import type { DefaultDecision } from './config';
import { AUTHZEN_PATHS } from '@custos/contracts';
import { Admission, NO_LIMITS, registerAdmissionMetrics, type AdmissionLimits } from './admission';
import { Decider } from './decision/decider';
import { SERVICE_NAME, type PdpMetrics } from './metrics';
import { openapi } from './openapi';
import type { FollowerStatus } from './policy-set/follower';
import { createAuthZenHandlers } from './routes/authzen';
import { authzenMetadataRoute } from './routes/authzen-metadata';
import type { PolicySource } from './routes/decision-request';
import { createDecisionHandler } from './routes/event';
import { EVENTS_PATH, createEventsHandler } from './routes/events';
import { listExecutions, retryExecution, type ExecutionRouteDeps } from './routes/executions';
import { replicaStatus, statusRoute } from './routes/status';

export interface AppDeps {
  logger: Logger;
  metrics: PdpMetrics;
  verifier: TokenVerifier;
  /** The policy-set follower (or anything that answers like it). */
  policies: PolicySource & { status(): FollowerStatus };
  natsConnected: () => boolean;
  replicaId: string;
  defaultDecision: DefaultDecision;
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
  executions?: Omit<ExecutionRouteDeps, 'verifier'>;
}

/** A node:http request listener; `app` is the express app behind everything but the decision routes. */
export type PdpListener = RequestListener & { app: Express };

export const DECISION_PATH = '/event';
export const EXPLAIN_PATH = '/event/explain';

/**
 * The pdp's HTTP surface. The decision routes (POST /event, /event/explain, /events and the AuthZEN evaluations) are
 * answered on bare node:http
 * (express costs about 6× a plain handler here, toolchain-notes.md); everything else, including
 * other methods on those paths (405), goes through the express app from service-kit.
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
  // Reached only for paths the fast path does not take literally (e.g. `/event/`); the same handler answers.
  service.route(DECISION_PATH, { post: (req, res) => decisions(req, res, false) });
  service.route(EXPLAIN_PATH, { post: (req, res) => decisions(req, res, true) });
  service.route(EVENTS_PATH, { post: (req, res) => batch(req, res) });
  service.route(AUTHZEN_PATHS.evaluation, { post: (req, res) => authzen.evaluation(req, res) });
  service.route(AUTHZEN_PATHS.evaluations, { post: (req, res) => authzen.evaluations(req, res) });
  service.route(AUTHZEN_PATHS.metadata, { get: authzenMetadataRoute(deps.publicUrl) });
  service.route('/status', { get: statusRoute(current) });
  if (deps.executions) {
    const executions = { ...deps.executions, verifier: deps.verifier };
    service.route('/executions', { get: listExecutions(executions) });
    service.route('/executions/:id/retry', { post: retryExecution(executions) });
  }
  const app = service.finish();

  const listener = (req: IncomingMessage, res: ServerResponse) => {
    if (req.method === 'POST') {
      const url = req.url ?? '';
      const query = url.indexOf('?');
      const path = query === -1 ? url : url.slice(0, query);
      if (path === DECISION_PATH) return void decisions(req, res, false);
      if (path === EXPLAIN_PATH) return void decisions(req, res, true);
      if (path === EVENTS_PATH) return void batch(req, res);
      if (path === AUTHZEN_PATHS.evaluation) return void authzen.evaluation(req, res);
      if (path === AUTHZEN_PATHS.evaluations) return void authzen.evaluations(req, res);
    }
    app(req, res);
  };
  return Object.assign(listener, { app });
}
