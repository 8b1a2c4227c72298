import {
  ConfigError,
  readAuditRetention,
  readCommonConfig,
  readInteger,
  readOptional,
  readTrustProxy,
  type AuditRetention,
  type CommonConfig,
  type Env,
  type TrustProxy,
} from '@custos/service-kit';
import { readKeyEncryption, type KeyEncryption } from './keys/key-encryption';
import { DEFAULT_SLOW_DOWN_MS } from './ratelimit/sign-in-guard';

/** Client ids an operator may choose (bootstrap): URL-safe, so they need no escaping anywhere. */
export const CONFIGURED_CLIENT_ID = /^[A-Za-z0-9._~-]{1,128}$/;

export interface BootstrapClient {
  clientId: string;
  clientSecret: string;
}

export interface RateLimitConfig {
  limit: number;
  windowMs: number;
  /** Absent: the same as `limit`. */
  sourceLimit?: number;
  delayMs?: number;
}

export interface AuthConfig extends CommonConfig {
  port: number;
  /** The admin client to make sure of on start; undefined unless both variables are set. */
  bootstrap: BootstrapClient | undefined;
  /**
   * Express `trust proxy` value: which peers may tell us the caller's address in X-Forwarded-For
   * (per-source rate limiting): `false` = the socket address (default), a hop count, `true`, or a
   * comma-separated list of addresses, subnets and the names `loopback`, `linklocal`, `uniquelocal`.
   */
  trustProxy: TrustProxy;
  /**
   * Failed client authentications within one window (`AUTH_FAILURE_WINDOW_SECONDS`, default 60): `limit` per
   * client id from one address, then 429 for that id from that address (`AUTH_FAILURE_LIMIT`, default 10);
   * `sourceLimit` per address for any ids, then 429 for the address (`AUTH_SOURCE_FAILURE_LIMIT`, default
   * `limit`); past `limit` failures of a client id from all addresses together, each attempt for it waits
   * `delayMs` (`AUTH_FAILURE_DELAY_MS`, default 1000, 0 = never).
   */
  rateLimit: RateLimitConfig;
  /** Operator keys sealing the signing keys at rest (`AUTH_KEY_ENCRYPTION_KEY`, `AUTH_KEY_ENCRYPTION_KEY_PREVIOUS`). */
  keyEncryption: KeyEncryption;
  /** `AUDIT_RETENTION_DAYS` (default 400) and `AUDIT_PRUNE_INTERVAL_SECONDS` (default 3600): how long audit records are kept. */
  auditRetention: AuditRetention;
}

export function readAuthConfig(env: Env): AuthConfig {
  const common = readCommonConfig(env);
  const clientId = readOptional(env, 'BOOTSTRAP_CLIENT_ID');
  const clientSecret = readOptional(env, 'BOOTSTRAP_CLIENT_SECRET');
  if ((clientId === undefined) !== (clientSecret === undefined)) {
    throw new ConfigError('set both BOOTSTRAP_CLIENT_ID and BOOTSTRAP_CLIENT_SECRET, or neither');
  }
  if (clientId !== undefined && !CONFIGURED_CLIENT_ID.test(clientId)) {
    throw new ConfigError(`BOOTSTRAP_CLIENT_ID may hold 1 to 128 of \`A-Z a-z 0-9 . _ ~ -\`, got \`${clientId}\``);
  }
  return {
    ...common,
    port: readInteger(env, 'AUTH_PORT', 8082, 0, 65535),
    bootstrap: clientId !== undefined && clientSecret !== undefined ? { clientId, clientSecret } : undefined,
    trustProxy: readTrustProxy(env, 'AUTH_TRUST_PROXY'),
    rateLimit: readRateLimit(env),
    keyEncryption: readKeyEncryption(env),
    auditRetention: readAuditRetention(env),
  };
}

function readRateLimit(env: Env): RateLimitConfig {
  const config: RateLimitConfig = {
    limit: readInteger(env, 'AUTH_FAILURE_LIMIT', 10, 1, 1_000_000),
    windowMs: readInteger(env, 'AUTH_FAILURE_WINDOW_SECONDS', 60, 1, 86_400) * 1000,
    delayMs: readInteger(env, 'AUTH_FAILURE_DELAY_MS', DEFAULT_SLOW_DOWN_MS, 0, 10_000),
  };
  // Unset follows AUTH_FAILURE_LIMIT (also when a test raises only that).
  if (readOptional(env, 'AUTH_SOURCE_FAILURE_LIMIT') !== undefined) config.sourceLimit = readInteger(env, 'AUTH_SOURCE_FAILURE_LIMIT', 10, 1, 1_000_000);
  return config;
}
