import { ConfigError, readInteger, readOptional, type Env } from '../config';
import type { Logger } from '../observability/logger';
import type { AuditLog } from './audit-log';

export interface AuditRetention {
  /** How long records are kept, in days (fractions allowed). */
  days: number;
  /** How often old records are deleted, in milliseconds. */
  intervalMs: number;
}

/** Default retention: 400 days (a year and its audit), pruned hourly. */
export const DEFAULT_AUDIT_RETENTION: AuditRetention = { days: 400, intervalMs: 3_600_000 };

/** `AUDIT_RETENTION_DAYS` (default 400; a positive number, fractions allowed) and `AUDIT_PRUNE_INTERVAL_SECONDS` (default 3600). */
export function readAuditRetention(env: Env): AuditRetention {
  const raw = readOptional(env, 'AUDIT_RETENTION_DAYS');
  const days = raw === undefined ? DEFAULT_AUDIT_RETENTION.days : Number(raw);
  if (!/^\d+(\.\d+)?$/.test(raw ?? '1') || !(days > 0)) throw new ConfigError(`AUDIT_RETENTION_DAYS must be a positive number of days, got \`${raw ?? ''}\``);
  const seconds = readInteger(env, 'AUDIT_PRUNE_INTERVAL_SECONDS', DEFAULT_AUDIT_RETENTION.intervalMs / 1000, 1, 86_400 * 7);
  return { days, intervalMs: seconds * 1000 };
}

/**
 * Deletes records older than the retention period now and then every interval; the returned function stops it. A
 * failed run is logged and tried again at the next interval.
 */
export function startAuditRetention(log: AuditLog, retention: AuditRetention, logger: Logger): () => void {
  const seconds = retention.days * 86_400;
  let running = false;
  const run = async (): Promise<void> => {
    if (running) return;
    running = true;
    try {
      const deleted = await log.prune(seconds);
      if (deleted > 0) logger.info({ deleted, retentionDays: retention.days }, 'audit records past retention deleted');
    } catch (error) {
      logger.warn({ err: error }, 'audit retention: old records not deleted this time');
    } finally {
      running = false;
    }
  };
  void run();
  const timer = setInterval(() => void run(), retention.intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
