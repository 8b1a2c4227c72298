import { userInfo } from 'node:os';
import type { Pool } from 'pg';
import { AuditLog, type Logger, type ServiceMetrics } from '@custos/service-kit';
import type { KeyAudit } from '../keys/rotation';

/** auth's own audit trail (`auth.audit_records`, migration 1796000000000). */
export const authAuditLog = (pool: Pool, logger: Logger, metrics?: ServiceMetrics): AuditLog =>
  new AuditLog(pool, { table: 'auth.audit_records', service: 'auth', logger, ...(metrics ? { metrics } : {}) });

/** Who a command-line change is by: the operating-system user that ran it, as `cli:<user>`. */
function commandUser(): string {
  try {
    return `cli:${userInfo().username}`;
  } catch {
    return 'cli';
  }
}

/** The audit record of a key change made on the command line, in the change's transaction. */
export function commandAudit(pool: Pool, logger: Logger): KeyAudit {
  const log = authAuditLog(pool, logger);
  return (client, operation, kid) => log.recordCommand(client, commandUser(), operation, kid);
}
