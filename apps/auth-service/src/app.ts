import type { Express } from 'express';
import type { Pool } from 'pg';
import { SCOPES } from '@custos/contracts';
import {
  ConfigError,
  Counter,
  createServiceApp,
  mountRoutes,
  requireScope,
  TokenVerifier,
  type AuditLog,
  type Logger,
  type ServiceMetrics,
  type Tracing,
} from '@custos/service-kit';
import { authOperationOf } from './audit/operations';
import { authAuditLog } from './audit/trail';
import { requireAdmin } from './clients/admin-guard';
import { ensureBootstrapClient } from './clients/bootstrap';
import { ClientStore } from './clients/client-store';
import type { AuthConfig, RateLimitConfig } from './config';
import { secureKeysAtRest } from './keys/at-rest';
import { NO_ENCRYPTION } from './keys/key-encryption';
import { KeyStore } from './keys/key-store';
import { oauthErrorHandler, type OAuthErrorCode } from './oauth/errors';
import { openapi } from './openapi';
import { FailureLimiter, type Clock } from './ratelimit/failure-limiter';
import { DEFAULT_SLOW_DOWN_MS, SignInGuard, type SignInGuardHooks } from './ratelimit/sign-in-guard';
import { AUTH_ROUTES } from './routes/table';
import { TOKEN_PATH, tokenRoute } from './routes/token';
import { REVOKE_PATH, revokeRoute } from './routes/revoke';
import { NO_FEED, type RevocationFeed } from './revocation/feed';
import { RevocationStore } from './revocation/revocation-store';
import { Revoker } from './revocation/revoker';

export const SERVICE_NAME = 'auth-service';

export interface AppDeps {
  pool: Pool;
  logger: Logger;
  metrics: ServiceMetrics;
  config: Pick<AuthConfig, 'bootstrap' | 'trustProxy'> & Partial<Pick<AuthConfig, 'keyEncryption'>>;
  /** Milliseconds since the epoch, for token times and rate-limit windows; Date.now by default. */
  clock?: Clock;
  /** Failed client authentications allowed (AuthConfig's `rateLimit`; default 10 a minute). */
  rateLimit?: Partial<RateLimitConfig>;
  /** How a slowed sign-in waits; a timer by default (tests pass their own). */
  pause?: SignInGuardHooks['pause'];
  /** Where revocations are announced as they are made (NATS); without it pap and pdp learn them by polling. */
  revocationFeed?: RevocationFeed;
  /** auth's audit trail; one on `pool` by default. */
  audit?: AuditLog;
  /** A span for each request (service-kit `mountRoutes`); none when absent. */
  tracing?: Tracing;
}

function tokenRequestCounter(metrics: ServiceMetrics): Counter<'outcome'> {
  const name = 'auth_token_requests_total';
  const existing = metrics.registry.getSingleMetric(name);
  if (existing) return existing as Counter<'outcome'>;
  return new Counter({
    name,
    help: 'Token requests by outcome: issued, or the OAuth error code',
    labelNames: ['outcome'],
    registers: [metrics.registry],
  });
}

function signInGuard(deps: AppDeps, clock: Clock): SignInGuard {
  const { limit = 10, windowMs, sourceLimit, delayMs = DEFAULT_SLOW_DOWN_MS } = deps.rateLimit ?? {};
  const name = 'auth_slowed_sign_ins_total';
  const slowed =
    (deps.metrics.registry.getSingleMetric(name) as Counter | undefined) ??
    new Counter({ name, help: 'Client authentications slowed because their client id failed too often from elsewhere', registers: [deps.metrics.registry] });
  return new SignInGuard(
    new FailureLimiter(deps.pool, { ...(windowMs === undefined ? {} : { windowMs }), clock }),
    { perClientAndSource: limit, perSource: sourceLimit ?? limit, slowDownMs: delayMs },
    { slowed: () => slowed.inc(), ...(deps.pause ? { pause: deps.pause } : {}) },
  );
}

/**
 * The auth service: makes sure a signing key (and the bootstrap client, when configured) exists,
 * then serves the token endpoint, the JWKS and the client admin API.
 */
export async function createApp(deps: AppDeps): Promise<Express> {
  const { pool, logger, metrics, config } = deps;
  const clock = deps.clock ?? Date.now;
  const clients = new ClientStore(pool);
  const encryption = config.keyEncryption ?? NO_ENCRYPTION;
  await secureKeysAtRest(pool, encryption, logger);
  const keys = await KeyStore.open(pool, { logger, encryption });
  if (config.bootstrap) await ensureBootstrapClient(clients, config.bootstrap, logger);

  const service = createServiceApp({
    service: SERVICE_NAME,
    logger,
    metrics,
    openapi,
    readiness: async () => {
      const database = await pool.query('SELECT 1').then(
        () => true,
        (error: unknown) => {
          logger.warn({ err: error }, 'readiness: database unreachable');
          return false;
        },
      );
      const signingKey = keys.hasSigningKey();
      return { ready: database && signingKey, database, signingKey };
    },
  });
  try {
    service.app.set('trust proxy', config.trustProxy);
  } catch (error) {
    throw new ConfigError(`AUTH_TRUST_PROXY is not valid: ${(error as Error).message}`);
  }

  const tokenRequests = tokenRequestCounter(metrics);
  const signIn = signInGuard(deps, clock);
  const revocations = new RevocationStore(pool);
  const revoker = new Revoker(revocations, deps.revocationFeed ?? NO_FEED, clock);
  const verifier = new TokenVerifier({ keys });
  const guard = requireAdmin(verifier, clients, revocations);
  const auditGuard = requireAdmin(verifier, clients, revocations, SCOPES.auditRead);
  const audit = deps.audit ?? authAuditLog(pool, logger, metrics);
  const issueToken = tokenRoute({
    clients,
    keys,
    guard: signIn,
    revocations,
    clock,
    logger,
    issued: () => tokenRequests.inc({ outcome: 'issued' }),
  });
  const revokeToken = revokeRoute({ clients, guard: signIn, logger, verifier, revoker, pool, audit });
  mountRoutes(service, AUTH_ROUTES, { pool, audit, clients, keys, revocations, revoker, clock, issueToken, revokeToken }, {
    authorize: (scope) => (scope === SCOPES.clientAdmin ? guard : scope === SCOPES.auditRead ? auditGuard : requireScope(verifier, scope)),
    before: (route) => audit.attempts(authOperationOf(route)),
    ...(deps.tracing === undefined ? {} : { tracing: deps.tracing }),
  });
  // Everything the token endpoint answers with, 405/413/415 included, is in the OAuth error form.
  service.app.use(
    TOKEN_PATH,
    oauthErrorHandler(logger, (code: OAuthErrorCode) => tokenRequests.inc({ outcome: code })),
  );
  service.app.use(REVOKE_PATH, oauthErrorHandler(logger));
  return service.finish();
}
