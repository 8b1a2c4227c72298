import { readAuditRetention, readCommonConfig, readInteger, readOptional, readString, readTimeZone, readTrustProxy, type AuditRetention, type CommonConfig, type Env, type TrustProxy } from '@custos/service-kit';

export interface PapConfig extends CommonConfig {
  port: number;
  /** A pdp (or a gateway in front of the replicas) the console's explanations go to. */
  pdpUrl: string;
  /**
   * Which proxies in front of pap may name the browser's address in `X-Forwarded-For` (`PAP_TRUST_PROXY`, express's
   * `trust proxy`; default none: the socket address). pap passes that address on to auth with console sign-ins.
   */
  trustProxy: TrustProxy;
  /** `POLICY_TIMEZONE`, the zone the pdps read cron in: pap says when a timer fires next in it. */
  timeZone: string;
  /** Replicas of the change stream in a NATS cluster (`NATS_STREAM_REPLICAS`); unset: min(3, cluster size). */
  streamReplicas: number | undefined;
  /** `AUDIT_RETENTION_DAYS` (default 400) and `AUDIT_PRUNE_INTERVAL_SECONDS` (default 3600): how long audit records are kept. */
  auditRetention: AuditRetention;
}

/**
 * api.md §1: the shared variables plus `PAP_PORT` (default 8081), `PDP_URL` and `PAP_TRUST_PROXY` for the console,
 * the pdps' `POLICY_TIMEZONE` for timers' next fire times, and `NATS_STREAM_REPLICAS` (README).
 */
export function readPapConfig(env: Env): PapConfig {
  return {
    ...readCommonConfig(env),
    port: readInteger(env, 'PAP_PORT', 8081, 1, 65535),
    pdpUrl: readString(env, 'PDP_URL', 'http://127.0.0.1:8080'),
    trustProxy: readTrustProxy(env, 'PAP_TRUST_PROXY'),
    timeZone: readTimeZone(env, 'POLICY_TIMEZONE'),
    // JetStream allows at most 5 copies of a stream.
    auditRetention: readAuditRetention(env),
    streamReplicas: readOptional(env, 'NATS_STREAM_REPLICAS') === undefined ? undefined : readInteger(env, 'NATS_STREAM_REPLICAS', 1, 1, 5),
  };
}
