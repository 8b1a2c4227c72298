import type { Pool } from 'pg';
import { type AuditOutcome, type AuditQuery, type AuditRecord, type AuditCursor } from '@custos/contracts';

/** The filters of a page of the trail, checked by the route: the wire's query with its cursor read and its limit set. */
export type AuditFilter = Omit<AuditQuery, 'limit' | 'cursor'> & {
  /** Records after this one in the trail's order (newest first). */
  after?: AuditCursor;
  limit: number;
};

interface AuditRow {
  seq: string;
  at_utc: string;
  who: string | null;
  operation: string;
  target: string | null;
  revision: string | null;
  outcome: AuditOutcome;
  status: number;
  reason: string | null;
  address: string | null;
  request_id: string | null;
}

/** One page of a service's own records, newest first. */
export async function queryAudit(db: Pick<Pool, 'query'>, table: string, service: string, filter: AuditFilter): Promise<AuditRecord[]> {
  const params: unknown[] = [];
  const where: string[] = [];
  const bind = (value: unknown): string => {
    params.push(value);
    return `$${params.length}`;
  };
  if (filter.who !== undefined) where.push(`who = ${bind(filter.who)}`);
  if (filter.operation !== undefined) {
    where.push(filter.operation.includes('.') ? `operation = ${bind(filter.operation)}` : `operation LIKE ${bind(`${filter.operation}.%`)}`);
  }
  if (filter.target !== undefined) where.push(`target = ${bind(filter.target)}`);
  if (filter.outcome !== undefined) where.push(`outcome = ${bind(filter.outcome)}`);
  if (filter.since !== undefined) where.push(`at >= ${bind(filter.since)}::timestamptz`);
  if (filter.until !== undefined) where.push(`at < ${bind(filter.until)}::timestamptz`);
  if (filter.after !== undefined) {
    const { at, service: afterService, seq } = filter.after;
    where.push(`(at, ${bind(service)}::text, seq) < (${bind(at)}::timestamptz, ${bind(afterService)}::text, ${bind(seq)}::bigint)`);
  }
  const result = await db.query<AuditRow>(
    `SELECT seq, to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS at_utc, who, operation, target, revision, outcome,
       status, reason, address, request_id
     FROM ${table} ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
     ORDER BY at DESC, seq DESC LIMIT ${bind(filter.limit)}`,
    params,
  );
  return result.rows.map((row) => ({
    id: `${service}:${row.seq}`,
    service: service as AuditRecord['service'],
    at: row.at_utc,
    who: row.who,
    operation: row.operation,
    target: row.target,
    revision: row.revision === null ? null : Number(row.revision),
    outcome: row.outcome,
    status: row.status,
    reason: row.reason,
    address: row.address,
    requestId: row.request_id,
  }));
}
