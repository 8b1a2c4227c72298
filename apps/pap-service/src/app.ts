import type { Express } from 'express';
import type { Pool } from 'pg';
import {
  createMetrics,
  createServiceApp,
  type Logger,
  type ReadinessReport,
  type ServiceMetrics,
  type TokenVerifier,
} from '@custos/service-kit';
import { registerPapGauges } from './metrics';
import { openapi } from './openapi';
import { getComponent } from './routes/component-get';
import { listComponentsRoute } from './routes/component-list';
import { registerComponent } from './routes/component-register';
import { unregisterComponent } from './routes/component-unregister';
import type { RouteContext } from './routes/context';
import { addPolicy } from './routes/policy-add';
import { deployPolicyRoute } from './routes/policy-deploy';
import { deployedPolicies } from './routes/policy-deployed';
import { policyIds } from './routes/policy-ids';
import { deployedPolicyIds } from './routes/policy-ids-deployed';
import { removePolicyRoute } from './routes/policy-remove';
import { replacePolicyRoute } from './routes/policy-replace';
import { revokePolicyRoute } from './routes/policy-revoke';
import { showPolicy } from './routes/policy-show';
import { policyStatusRoute } from './routes/policy-status';
import { addTimer } from './routes/timer-add';
import { deployTimerRoute } from './routes/timer-deploy';
import { timerIds } from './routes/timer-ids';
import { removeTimerRoute } from './routes/timer-remove';
import { replaceTimerRoute } from './routes/timer-replace';
import { revokeTimerRoute } from './routes/timer-revoke';
import { showTimer } from './routes/timer-show';
import { timerStatusRoute } from './routes/timer-status';
import { readStats } from './store/stats';

export const SERVICE_NAME = 'pap-service';

export interface AppDeps {
  pool: Pool;
  verifier: TokenVerifier;
  logger: Logger;
  /** Defaults to a fresh registry without process metrics. */
  metrics?: ServiceMetrics;
  /** Wakes the outbox publisher after a commit that changed the deployed set. */
  onDeployedSetChange?: () => void;
  /** The NATS connection state for /health/ready (pap stays ready without NATS: the outbox keeps changes). */
  natsState?: () => string;
}

export function createApp(deps: AppDeps): Express {
  const metrics = deps.metrics ?? createMetrics(SERVICE_NAME, false);
  registerPapGauges(metrics.registry, deps.pool, deps.logger);
  const service = createServiceApp({
    service: SERVICE_NAME,
    logger: deps.logger,
    metrics,
    openapi,
    readiness: () => readiness(deps),
  });
  const ctx: RouteContext = {
    pool: deps.pool,
    verifier: deps.verifier,
    logger: deps.logger,
    onDeployedSetChange: deps.onDeployedSetChange ?? (() => undefined),
  };

  service.route('/ws/component', { get: listComponentsRoute(ctx), post: registerComponent(ctx) });
  service.route('/ws/component/:identifier', { get: getComponent(ctx), delete: unregisterComponent(ctx) });

  service.route('/ws/policy', { post: addPolicy(ctx) });
  // Before `/ws/policy/:id`, which would otherwise read `deployed` as an id.
  service.route('/ws/policy/deployed', { get: deployedPolicies(ctx) });
  service.route('/ws/policy/:id', { get: showPolicy(ctx), put: replacePolicyRoute(ctx), delete: removePolicyRoute(ctx) });
  service.route('/ws/policy/:id/deploy', { post: deployPolicyRoute(ctx) });
  const revoke = revokePolicyRoute(ctx);
  service.route('/ws/policy/:id/revoke', { get: revoke, post: revoke });
  service.route('/ws/policy/:id/status', { get: policyStatusRoute(ctx) });
  service.route('/ws/policy-ids', { get: policyIds(ctx) });
  service.route('/ws/policy-ids/deployed', { get: deployedPolicyIds(ctx) });

  // Timers mirror policies (api.md §4), with the policy scopes.
  service.route('/ws/timer', { post: addTimer(ctx) });
  service.route('/ws/timer/:id', { get: showTimer(ctx), put: replaceTimerRoute(ctx), delete: removeTimerRoute(ctx) });
  service.route('/ws/timer/:id/deploy', { post: deployTimerRoute(ctx) });
  const revokeTimer = revokeTimerRoute(ctx);
  service.route('/ws/timer/:id/revoke', { get: revokeTimer, post: revokeTimer });
  service.route('/ws/timer/:id/status', { get: timerStatusRoute(ctx) });
  service.route('/ws/timer-ids', { get: timerIds(false)(ctx) });
  service.route('/ws/timer-ids/deployed', { get: timerIds(true)(ctx) });

  return service.finish();
}

async function readiness(deps: AppDeps): Promise<ReadinessReport> {
  const nats = deps.natsState?.() ?? 'unknown';
  try {
    const stats = await readStats(deps.pool);
    return { ready: true, database: 'up', nats, revision: stats.revision, outboxBacklog: stats.outboxBacklog };
  } catch (error) {
    deps.logger.warn({ err: error }, 'readiness: database unreachable');
    return { ready: false, database: 'down', nats };
  }
}
