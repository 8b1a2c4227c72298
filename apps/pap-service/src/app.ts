import type { Express } from 'express';
import type { Pool } from 'pg';
import {
  ConfigError,
  createServiceApp,
  mountRoutes,
  requireScope,
  type Logger,
  type ReadinessReport,
  type ServiceMetrics,
  type TokenVerifier,
  type AuditLog,
  type Tracing,
  type TrustProxy,
} from '@custos/service-kit';
import type { AuthTrail } from './audit/auth-trail';
import { papOperationOf } from './audit/operations';
import { papAuditLog } from './audit/trail';
import { mountConsole, type ConsoleOptions } from './console/mount';
import type { DocumentKind } from './documents/kind';
import { POLICY_KIND } from './documents/policy-kind';
import { TIMER_KIND } from './documents/timer-kind';
import { registerPapGauges } from './metrics';
import { openapi } from './openapi';
import type { RouteContext } from './routes/context';
import { PAP_ROUTES } from './routes/table';
import type { DecisionRecordReader } from './decision-records/reader';
import type { ReplicaDirectory } from './replicas/replica-directory';
import { DocumentStore, type DocumentMetadata } from './store/documents';
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
  /** `POLICY_TIMEZONE` (PapConfig's `timeZone`), for timers' next fire times; UTC by default, as for the pdps. */
  timeZone?: string;
  /** pap's audit trail; one on `pool` by default. */
  audit?: AuditLog;
  /** Auth's audit trail, merged into `GET /ws/audit` (composePap reads it from AUTH_URL); pap's alone without it. */
  authTrail?: AuthTrail;
  /** Reads the pdps' decision records from their stream (issue 24); none without NATS. */
  decisionRecords?: DecisionRecordReader;
  /** A span for each management request (service-kit `mountRoutes`); none when absent. */
  tracing?: Tracing;
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
  // Timers mirror policies (api.md §4), each kind in its own table.
  const policies = new DocumentStore(deps.pool, POLICY_KIND.table, deps.onChange);
  const timers = new DocumentStore(deps.pool, TIMER_KIND.table, deps.onChange);
  const audit = deps.audit ?? papAuditLog(deps.pool, deps.logger, deps.metrics);
  const ctx: RouteContext = {
    pool: deps.pool,
    verifier: deps.verifier,
    logger: deps.logger,
    onDeployedSetChange: deps.onChange,
    // Each store was made from its kind's own table, so it holds that kind's metadata.
    storeOf: <M extends DocumentMetadata>(kind: DocumentKind<M, unknown>) => (kind.name === 'policy' ? policies : timers) as unknown as DocumentStore<M>,
    ...(deps.replicas ? { replicas: deps.replicas } : {}),
    ...(deps.decisionRecords ? { decisionRecords: deps.decisionRecords } : {}),
    timeZone: deps.timeZone ?? 'UTC',
    audit,
    ...(deps.authTrail ? { authTrail: deps.authTrail } : {}),
  };
  mountRoutes(service, PAP_ROUTES, ctx, {
    authorize: (scope) => requireScope(deps.verifier, scope),
    before: (route) => audit.attempts(papOperationOf(route)),
    ...(deps.tracing === undefined ? {} : { tracing: deps.tracing }),
  });
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
