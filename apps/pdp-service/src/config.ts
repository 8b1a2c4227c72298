import { hostname } from 'node:os';
import type { AdmissionLimits } from './admission';
import { readDecisionRecordsConfig, type DecisionRecordsConfig } from './decision-records/config';
import { AUTHZEN_DEFAULTS, type AuthZenDefault } from '@custos/contracts';
import { ConfigError, EgressPolicy, readChoice, readCommonConfig, readInteger, readOptional, readTimeZone, type CommonConfig, type Env } from '@custos/service-kit';

export const DECISIONS = ['allow', 'inhibit'] as const;
export type DefaultDecision = (typeof DECISIONS)[number];

/** Everything the pdp reads from the environment (api.md §1). */
export interface PdpConfig extends CommonConfig {
  port: number;
  defaultDecision: DefaultDecision;
  /** The AuthZEN answer for an action no deployed mechanism reacts to (`PDP_AUTHZEN_DEFAULT`, default `deny`). */
  authzenDefault: AuthZenDefault;
  /** IANA zone, as Intl resolved it. */
  timeZone: string;
  /** Periodic snapshot check (architecture.md §2: at most 30 s). */
  resyncIntervalMs: number;
  /** How long a starting replica waits for its first policy set before it listens anyway (0: it listens at once). */
  startWaitMs: number;
  /** Names this replica in /status, logs and snapshot requests. */
  replicaId: string;
  history: HistoryConfig;
  pip: PipConfig;
  pxp: PxpConfig;
  /** Whether this replica schedules deployed timers (`PDP_TIMERS`, default on). */
  timers: boolean;
  /** A tick missed while no replica could fire it: fired late once (`last`, default) or not at all (`skip`). */
  timerCatchUp: 'last' | 'skip';
  /** A claimed tick is its claimer's to fire this long; then another replica fires it (`PDP_TIMER_LEASE_MS`). */
  timerLeaseMs: number;
  /** How often missed and abandoned ticks are looked for (`PDP_TIMER_CHECK_MS`). */
  timerCheckMs: number;
  /** The base URL PEPs reach this pdp at (`PDP_PUBLIC_URL`), named by the AuthZEN metadata; from each request when unset. */
  publicUrl: string | undefined;
  /** Where PIP and PXP calls may go (`PDP_CALL_ALLOW`); read here so a malformed list stops the start. */
  egress: EgressPolicy;
  /** Per-solution admission of the decision routes (`PDP_SOLUTION_*`, `PDP_WORK_SLICE_MS`). */
  admission: AdmissionLimits;
  /** Decision records on the JetStream stream (`PDP_DECISION_RECORDS*`, issue 24). */
  decisionRecords: DecisionRecordsConfig;
}

/** The event history in PostgreSQL (docs/api.md, "Event history"). */
export interface HistoryConfig {
  /** Key of the parameter hashes; undefined: generated on first start and kept in `pdp.settings`. */
  secret: string | undefined;
  /** Connections of the history pool (only history-using decisions take one). */
  poolSize: number;
  /** Waiting for a connection, and any statement (lock waits included), fails after this long: fail closed. */
  timeoutMs: number;
  /** How often retention runs (one replica at a time). */
  retentionIntervalMs: number;
  /** Commit history transactions with synchronous_commit (durable before the answer). */
  synchronousCommit: boolean;
  /** How long the first recorded decision of a batch waits for others to join it (ms; 0: it goes at once). */
  batchWindowMs: number;
}

export interface PipConfig {
  timeoutMs: number;
  /** Calls in flight per PIP URL; more fail at once (the element takes its default). */
  maxConcurrency: number;
  /** Consecutive failures that open the circuit of a PIP URL, and how long it stays open. */
  breakerFailures: number;
  breakerOpenMs: number;
  /** Answers kept for `ttl` elements. */
  cacheEntries: number;
}

export interface PxpConfig {
  /** Timeout of one attempt of an asynchronous execute. */
  timeoutMs: number;
  /** Timeout of an `execute` inside a condition (no retries). */
  syncTimeoutMs: number;
  /** Attempts of an asynchronous execute, the first included. */
  attempts: number;
  /** First retry delay; doubled per attempt, with jitter. */
  backoffMs: number;
  maxConcurrency: number;
  /** A replica's claim on a stored execute lasts this long past its next attempt; then another may take it over. */
  leaseMs: number;
  /** How often each replica looks for stored executes that are due and unclaimed. */
  pollMs: number;
  /** Consecutive failures that open the circuit of a PXP URL, and how long it stays open. */
  breakerFailures: number;
  breakerOpenMs: number;
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
    authzenDefault: readChoice(env, 'PDP_AUTHZEN_DEFAULT', AUTHZEN_DEFAULTS, 'deny'),
    timeZone: readTimeZone(env, 'POLICY_TIMEZONE'),
    resyncIntervalMs: readInteger(env, 'PDP_RESYNC_INTERVAL_MS', 30_000, 100, 30_000),
    startWaitMs: readInteger(env, 'PDP_START_WAIT_MS', 0, 0, 600_000),
    replicaId,
    history: readHistoryConfig(env),
    pip: {
      timeoutMs: readInteger(env, 'PDP_PIP_TIMEOUT_MS', 500, 1, 60_000),
      maxConcurrency: readInteger(env, 'PDP_PIP_MAX_CONCURRENCY', 32, 1, 10_000),
      breakerFailures: readInteger(env, 'PDP_PIP_BREAKER_FAILURES', 5, 1, 1000),
      breakerOpenMs: readInteger(env, 'PDP_PIP_BREAKER_OPEN_MS', 5000, 1, 600_000),
      cacheEntries: readInteger(env, 'PDP_PIP_CACHE_ENTRIES', 10_000, 0, 10_000_000),
    },
    pxp: {
      timeoutMs: readInteger(env, 'PDP_PXP_TIMEOUT_MS', 2000, 1, 600_000),
      syncTimeoutMs: readInteger(env, 'PDP_PXP_SYNC_TIMEOUT_MS', 500, 1, 60_000),
      attempts: readInteger(env, 'PDP_PXP_ATTEMPTS', 4, 1, 100),
      backoffMs: readInteger(env, 'PDP_PXP_BACKOFF_MS', 200, 1, 600_000),
      maxConcurrency: readInteger(env, 'PDP_PXP_MAX_CONCURRENCY', 32, 1, 10_000),
      leaseMs: readInteger(env, 'PDP_PXP_LEASE_MS', 15_000, 100, 3_600_000),
      pollMs: readInteger(env, 'PDP_PXP_POLL_MS', 1000, 10, 600_000),
      breakerFailures: readInteger(env, 'PDP_PXP_BREAKER_FAILURES', 5, 1, 1000),
      breakerOpenMs: readInteger(env, 'PDP_PXP_BREAKER_OPEN_MS', 5000, 1, 600_000),
    },
    timers: readChoice(env, 'PDP_TIMERS', ['on', 'off'] as const, 'on') === 'on',
    timerCatchUp: readChoice(env, 'PDP_TIMER_CATCH_UP', ['last', 'skip'] as const, 'last'),
    timerLeaseMs: readInteger(env, 'PDP_TIMER_LEASE_MS', 60_000, 100, 3_600_000),
    timerCheckMs: readInteger(env, 'PDP_TIMER_CHECK_MS', 10_000, 50, 3_600_000),
    publicUrl: readPublicUrl(env),
    egress: EgressPolicy.fromEnv(env),
    admission: readAdmissionLimits(env),
    decisionRecords: readDecisionRecordsConfig(env),
  };
}

/**
 * Per solution and replica (README, "Configuration", says why these defaults): 64 requests in flight, 10,000
 * decisions a second with a burst of one second's worth, batch work in slices of 2 ms. 0 turns a limit off.
 */
export function readAdmissionLimits(env: Env): AdmissionLimits {
  const ratePerSecond = readInteger(env, 'PDP_SOLUTION_RATE', 10_000, 0, 10_000_000);
  return {
    maxConcurrency: readInteger(env, 'PDP_SOLUTION_MAX_CONCURRENCY', 64, 0, 100_000),
    ratePerSecond,
    burst: readInteger(env, 'PDP_SOLUTION_BURST', Math.max(ratePerSecond, 1), 1, 100_000_000),
    sliceMs: readInteger(env, 'PDP_WORK_SLICE_MS', 2, 1, 1000),
  };
}

/** An http(s) URL without query or fragment (AuthZEN §9.1.1 wants https; plain http is for local stacks). */
function readPublicUrl(env: Env): string | undefined {
  const text = readOptional(env, 'PDP_PUBLIC_URL');
  if (text === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ConfigError(`PDP_PUBLIC_URL must be a URL, got \`${text}\``);
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.search !== '' || url.hash !== '' || text.includes('?') || text.includes('#')) {
    throw new ConfigError(`PDP_PUBLIC_URL must be an http(s) URL without query or fragment, got \`${text}\``);
  }
  return text.replace(/\/+$/, '');
}

/** The history secret must be long enough to be a key; short ones are a configuration mistake. */
export const MIN_HISTORY_SECRET_LENGTH = 16;

function readHistoryConfig(env: Env): HistoryConfig {
  const secret = readOptional(env, 'PDP_HISTORY_SECRET');
  if (secret !== undefined && secret.length < MIN_HISTORY_SECRET_LENGTH) {
    throw new ConfigError(`PDP_HISTORY_SECRET must be at least ${MIN_HISTORY_SECRET_LENGTH} characters long`);
  }
  return {
    secret,
    poolSize: readInteger(env, 'PDP_HISTORY_POOL_SIZE', 10, 1, 1000),
    timeoutMs: readInteger(env, 'PDP_HISTORY_TIMEOUT_MS', 2000, 10, 600_000),
    retentionIntervalMs: readInteger(env, 'PDP_HISTORY_RETENTION_INTERVAL_MS', 60_000, 100, 86_400_000),
    synchronousCommit: readChoice(env, 'PDP_HISTORY_SYNC_COMMIT', ['on', 'off'] as const, 'on') === 'on',
    batchWindowMs: readInteger(env, 'PDP_HISTORY_BATCH_WINDOW_MS', 0, 0, 1000),
  };
}
