import type { Express } from 'express';
import type { Pool } from 'pg';
import {
  ConfigError,
  createServiceApp,
  type Logger,
  type ReadinessReport,
  type ServiceMetrics,
  type TokenVerifier,
  type TrustProxy,
} from '@custos/service-kit';
import { mountConsole, type ConsoleOptions } from './console/mount';
import { POLICY_KIND } from './documents/policy-kind';
import { TIMER_KIND } from './documents/timer-kind';
import { registerPapGauges } from './metrics';
import { openapi } from './openapi';
import { getComponent } from './routes/component-get';
import { listComponentsRoute } from './routes/component-list';
import { registerComponent } from './routes/component-register';
import { unregisterComponent } from './routes/component-unregister';
import type { RouteContext } from './routes/context';
import { mountDocumentRoutes } from './routes/document-routes';
import { validateDocument } from './routes/document-validate';
import { replicasRoute } from './routes/replicas';
import type { ReplicaDirectory } from './replicas/replica-directory';
import { DocumentStore } from './store/documents';
import { readStats } from './store/stats';

export const SERVICE_NAME = 'pap-service';

/** Everything the app is built from; composePap makes them (main.ts and the tests both go through it). */
export interface AppDeps {
  pool: Pool;
  verifier: TokenVerifier;
  logger: Logger;
  metrics: ServiceMetrics;
  /** Told after every commit that changed what the pdps decide with: wakes the outbox publisher. */
  onChange: () => void;
  /** The NATS connection state for /health/ready (pap stays ready without NATS: the outbox keeps changes). */
  natsState: () => string;
  /** The web console and where it forwards tokens and explanations; no console without it. */
  console?: ConsoleOptions;
  /** The pdp replicas that report over NATS (none known without propagation). */
  replicas?: ReplicaDirectory;
  /** Which proxies may name the caller's address (PapConfig's `trustProxy`); none by default. */
  trustProxy?: TrustProxy;
}

export function createApp(deps: AppDeps): Express {
  registerPapGauges(deps.metrics.registry, deps.pool, deps.logger);
  const service = createServiceApp({
    service: SERVICE_NAME,
    logger: deps.logger,
    metrics: deps.metrics,
    openapi,
    readiness: () => readiness(deps),
  });
  try {
    // The console's sign-ins pass the browser's address to auth; only these proxies may tell pap what it is.
    service.app.set('trust proxy', deps.trustProxy ?? false);
  } catch (error) {
    throw new ConfigError(`PAP_TRUST_PROXY is not valid: ${(error as Error).message}`);
  }
  const ctx: RouteContext = { pool: deps.pool, verifier: deps.verifier, logger: deps.logger, onDeployedSetChange: deps.onChange };

  service.route('/ws/component', { get: listComponentsRoute(ctx), post: registerComponent(ctx) });
  service.route('/ws/component/:identifier', { get: getComponent(ctx), delete: unregisterComponent(ctx) });

  // Timers mirror policies (api.md §4), with the policy scopes.
  const policies = { verifier: deps.verifier, kind: POLICY_KIND, store: new DocumentStore(deps.pool, POLICY_KIND.table, deps.onChange) };
  const timers = { verifier: deps.verifier, kind: TIMER_KIND, store: new DocumentStore(deps.pool, TIMER_KIND.table, deps.onChange) };
  // Before the document routes, whose `/:id` would read `validate` as an id.
  service.route('/ws/policy/validate', { post: validateDocument(policies) });
  service.route('/ws/timer/validate', { post: validateDocument(timers) });
  mountDocumentRoutes(service, policies);
  mountDocumentRoutes(service, timers);
  service.route('/ws/replicas', { get: replicasRoute(deps.pool, deps.verifier, deps.replicas) });
  if (deps.console) mountConsole(service, deps.console, deps.verifier, deps.logger);

  return service.finish();
}

async function readiness(deps: AppDeps): Promise<ReadinessReport> {
  const nats = deps.natsState();
  try {
    const stats = await readStats(deps.pool);
    return { ready: true, database: 'up', nats, revision: stats.revision, outboxBacklog: stats.outboxBacklog };
  } catch (error) {
    deps.logger.warn({ err: error }, 'readiness: database unreachable');
    return { ready: false, database: 'down', nats };
  }
}
