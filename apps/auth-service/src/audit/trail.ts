import { userInfo } from 'node:os';
import type { Pool, PoolClient } from 'pg';
import { AuditLog, type Logger, type ServiceMetrics } from '@custos/service-kit';

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

/** Records a change made on the command line (a key's, a client's) in the change's transaction `client`. */
export type CommandAudit = (client: PoolClient, operation: string, target: string) => Promise<void>;

/** The audit record of a change made on the command line, in the change's transaction, by `cli:<user>`. */
export function commandAudit(pool: Pool, logger: Logger): CommandAudit {
  const log = authAuditLog(pool, logger);
  return (client, operation, kid) => log.recordCommand(client, commandUser(), operation, kid);
}
