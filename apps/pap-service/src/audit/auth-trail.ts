import { Type } from '@sinclair/typebox';
import { auditRecordSchema, encodeAuditCursor, type AuditRecord } from '@custos/contracts';
import { compileValidator, type AuditFilter, type Logger } from '@custos/service-kit';

/** Reads a page of auth's audit trail with the caller's own token; undefined when auth cannot be read. */
export type AuthTrail = (filter: AuditFilter, authorization: string | undefined) => Promise<AuditRecord[] | undefined>;

const validAnswer = compileValidator<{ records: AuditRecord[] }>(Type.Object({ records: Type.Array(auditRecordSchema) }));
const TIMEOUT_MS = 5_000;

/** Auth's `GET /audit` over HTTP: auth owns its records (architecture: each service its own tables). */
export function authTrail(authUrl: string, logger: Logger): AuthTrail {
  return async (filter, authorization) => {
    const query = new URLSearchParams({ limit: String(filter.limit) });
    for (const key of ['who', 'operation', 'target', 'outcome', 'since', 'until'] as const) {
      const value = filter[key];
      if (value !== undefined) query.set(key, value);
    }
    if (filter.after) query.set('cursor', encodeAuditCursor(filter.after));
    try {
      const response = await fetch(`${authUrl}/audit?${query.toString()}`, {
        headers: { accept: 'application/json', ...(authorization === undefined ? {} : { authorization }) },
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
      if (!response.ok) {
        logger.warn({ status: response.status }, 'audit: auth did not answer its trail');
        return undefined;
      }
      const body: unknown = await response.json();
      if (!validAnswer(body)) {
        logger.warn('audit: auth answered a trail of another form');
        return undefined;
      }
      return body.records;
    } catch (error) {
      logger.warn({ err: error }, 'audit: auth could not be reached for its trail');
      return undefined;
    }
  };
}
