import type { Pool } from 'pg';
import { AuditLog, type Logger, type ServiceMetrics } from '@custos/service-kit';

/** pap's own audit trail (`pap.audit_records`, migration 1796000000000). */
export const papAuditLog = (pool: Pool, logger: Logger, metrics: ServiceMetrics): AuditLog =>
  new AuditLog(pool, { table: 'pap.audit_records', service: 'pap', logger, metrics });
