import { ConfigError, readCommonConfig, readInteger, readOptional, type CommonConfig, type Env } from '@custos/service-kit';
import { readKeyEncryption, type KeyEncryption } from './keys/key-encryption';

/** Client ids an operator may choose (bootstrap): URL-safe, so they need no escaping anywhere. */
export const CONFIGURED_CLIENT_ID = /^[A-Za-z0-9._~-]{1,128}$/;

export interface BootstrapClient {
  clientId: string;
  clientSecret: string;
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
  trustProxy: string | number | boolean;
  /**
   * Failed token requests allowed per client id and per source address within one window, then
   * 429 until the window ends (`AUTH_FAILURE_LIMIT`, default 10; `AUTH_FAILURE_WINDOW_SECONDS`, default 60).
   */
  rateLimit: { limit: number; windowMs: number };
  /** Operator keys sealing the signing keys at rest (`AUTH_KEY_ENCRYPTION_KEY`, `AUTH_KEY_ENCRYPTION_KEY_PREVIOUS`). */
  keyEncryption: KeyEncryption;
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
    trustProxy: readTrustProxy(readOptional(env, 'AUTH_TRUST_PROXY')),
    rateLimit: {
      limit: readInteger(env, 'AUTH_FAILURE_LIMIT', 10, 1, 1_000_000),
      windowMs: readInteger(env, 'AUTH_FAILURE_WINDOW_SECONDS', 60, 1, 86_400) * 1000,
    },
    keyEncryption: readKeyEncryption(env),
  };
}

function readTrustProxy(raw: string | undefined): string | number | boolean {
  if (raw === undefined || raw === 'false') return false;
  if (raw === 'true') return true;
  if (/^\d+$/.test(raw)) return Number(raw);
  return raw;
}
