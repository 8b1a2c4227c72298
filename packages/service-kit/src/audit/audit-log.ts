import type { Request, RequestHandler, Response } from 'express';
import type { Pool } from 'pg';
import type { AuditOutcome, AuditRecord } from '@custos/contracts';
import { problemOf } from '../http/problem';
import type { Logger } from '../observability/logger';
import { Counter, type ServiceMetrics } from '../observability/metrics';
import { queryAudit, type AuditFilter } from './audit-query';

type Queryable = Pick<Pool, 'query'>;

/** What the audit trail knows of a request from its first middleware on (`res.locals.audit`). */
export interface AuditAttempt {
  operation: string;
  target: string | null;
  address: string | null;
  requestId: string | null;
  /** An accepted change's record was written in its transaction: the response needs no record of its own. */
  recorded: boolean;
}

/** What the transaction of a change adds to the attempt. */
export interface AuditChange {
  target?: string | null;
  revision?: number | null;
  /** The status the change is answered with (200 unless said). */
  status?: number;
}

export interface AuditLogOptions {
  /** The service's own table, schema-qualified (`pap.audit_records`): a trusted constant. */
  table: string;
  /** How records of this service are named in the merged trail (`pap`, `auth`). */
  service: string;
  logger: Logger;
  /** Where `audit_records_failed_total` is counted; a command line has none. */
  metrics?: ServiceMetrics;
}

const attemptOf = (res: Response): AuditAttempt | undefined => res.locals.audit as AuditAttempt | undefined;

/** Who made the request: the accepted token's client, or the client a refused token (or secret) named. */
const callerOf = (res: Response): string | null => {
  const principal = res.locals.principal as { clientId?: unknown } | undefined;
  if (typeof principal?.clientId === 'string') return principal.clientId;
  return typeof res.locals.caller === 'string' ? res.locals.caller : null;
};

/** The request's target when the route names one in its path: the first path parameter. */
const pathTarget = (req: Request): string | null => {
  const first = Object.values(req.params)[0];
  return typeof first === 'string' ? first : null;
};

/**
 * A service's audit trail (its own table): accepted changes recorded by the change's own transaction
 * (`recordIn`), refused and failed attempts recorded once their answer is sent (`attempts`), read by `query`.
 */
export class AuditLog {
  private readonly unrecorded: Counter | undefined;

  constructor(
    readonly pool: Pool,
    private readonly options: AuditLogOptions,
  ) {
    const name = 'audit_records_failed_total';
    const registry = options.metrics?.registry;
    this.unrecorded =
      registry &&
      ((registry.getSingleMetric(name) as Counter | undefined) ??
        new Counter({ name, help: 'Refused or failed attempts whose audit record could not be written', registers: [registry] }));
  }

  get service(): string {
    return this.options.service;
  }

  /**
   * Middleware for the routes that change something (`operation` names them; undefined leaves a route out): it
   * notes the attempt, and records it after its answer when that answer is a refusal or a failure. A failure to
   * record is logged and counted, never answered: the answer was already sent.
   */
  attempts(operation: string | undefined): RequestHandler | undefined {
    if (operation === undefined) return undefined;
    return (req, res, next) => {
      const attempt: AuditAttempt = {
        operation,
        target: pathTarget(req),
        address: req.ip ?? req.socket.remoteAddress ?? null,
        requestId: typeof res.locals.requestId === 'string' ? res.locals.requestId : null,
        recorded: false,
      };
      res.locals.audit = attempt;
      res.on('finish', () => {
        if (res.statusCode < 400) return;
        const problem = problemOf(res);
        const reason = problem ? `${problem.code}: ${problem.detail}` : null;
        void this.insertAttempt(attempt, callerOf(res), res.statusCode >= 500 ? 'failed' : 'refused', res.statusCode, reason);
      });
      next();
    };
  }

  /** Sets the target of the request's record (an id the request created, say). */
  static target(res: Response, target: string): void {
    const attempt = attemptOf(res);
    if (attempt) attempt.target = target;
  }

  /**
   * Writes the record of an accepted change with `db`, the change's own transaction: it commits or rolls back
   * with the change. Throws when the request was not noted by `attempts` (a route left out of the trail).
   */
  async recordIn(db: Queryable, res: Response, change: AuditChange = {}): Promise<void> {
    const attempt = attemptOf(res);
    if (!attempt) throw new Error('recordIn called on a request the audit trail did not note');
    if (change.target !== undefined) attempt.target = change.target;
    await this.insert(db, attempt, callerOf(res), 'accepted', change.status ?? 200, null, change.revision ?? null);
    attempt.recorded = true;
  }

  /** A change made outside HTTP (the auth command line), recorded in its transaction. */
  async recordCommand(db: Queryable, who: string, operation: string, target: string | null): Promise<void> {
    await this.insert(db, { operation, target, address: null, requestId: null, recorded: false }, who, 'accepted', 0, null, null);
  }

  query(filter: AuditFilter): Promise<AuditRecord[]> {
    return queryAudit(this.pool, this.options.table, this.options.service, filter);
  }

  /** Deletes the records older than `seconds`; how many went. */
  async prune(seconds: number): Promise<number> {
    const result = await this.pool.query(`DELETE FROM ${this.options.table} WHERE at < now() - make_interval(secs => $1)`, [seconds]);
    return result.rowCount ?? 0;
  }

  private async insertAttempt(attempt: AuditAttempt, who: string | null, outcome: AuditOutcome, status: number, reason: string | null): Promise<void> {
    try {
      await this.insert(this.pool, attempt, who, outcome, status, reason, null);
    } catch (error) {
      this.unrecorded?.inc();
      this.options.logger.warn({ err: error, requestId: attempt.requestId, operation: attempt.operation }, 'audit record of a refused attempt not written');
    }
  }

  private async insert(
    db: Queryable,
    attempt: AuditAttempt,
    who: string | null,
    outcome: AuditOutcome,
    status: number,
    reason: string | null,
    revision: number | null,
  ): Promise<void> {
    await db.query(
      `INSERT INTO ${this.options.table} (who, operation, target, revision, outcome, status, reason, address, request_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [who, attempt.operation, attempt.target?.slice(0, 512) ?? null, revision, outcome, status, reason?.slice(0, 1024) ?? null, attempt.address, attempt.requestId],
    );
  }
}
