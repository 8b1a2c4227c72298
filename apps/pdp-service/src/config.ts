import { hostname } from 'node:os';
import { ConfigError, readChoice, readCommonConfig, readInteger, readOptional, type CommonConfig, type Env } from '@custos/service-kit';

export const DECISIONS = ['allow', 'inhibit'] as const;
export type DefaultDecision = (typeof DECISIONS)[number];

/** Everything the pdp reads from the environment (api.md §1). */
export interface PdpConfig extends CommonConfig {
  port: number;
  defaultDecision: DefaultDecision;
  /** IANA zone, as Intl resolved it. */
  timeZone: string;
  /** Periodic snapshot check (architecture.md §2: at most 30 s). */
  resyncIntervalMs: number;
  /** Names this replica in /status, logs and snapshot requests. */
  replicaId: string;
}

/** The canonical name of an IANA zone, or a ConfigError. */
export function validTimeZone(name: string): string {
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    throw new ConfigError(`POLICY_TIMEZONE must be an IANA time zone, got \`${name}\``);
  }
}

export function readPdpConfig(env: Env, host: string = hostname()): PdpConfig {
  const common = readCommonConfig(env);
  const port = readInteger(env, 'PDP_PORT', 8080, 1, 65535);
  const replicaId = readOptional(env, 'PDP_REPLICA_ID') ?? `${host}:${port}`;
  if (replicaId.length > 200) throw new ConfigError('PDP_REPLICA_ID must be at most 200 characters long');
  return {
    ...common,
    port,
    defaultDecision: readChoice(env, 'DEFAULT_DECISION', DECISIONS, 'allow'),
    timeZone: validTimeZone(readOptional(env, 'POLICY_TIMEZONE') ?? 'UTC'),
    resyncIntervalMs: readInteger(env, 'PDP_RESYNC_INTERVAL_MS', 30_000, 100, 30_000),
    replicaId,
  };
}
