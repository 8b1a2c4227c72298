import { Type } from '@sinclair/typebox';
import {
  AUDIT_DEFAULT_LIMIT,
  AUDIT_MAX_LIMIT,
  AUDIT_OUTCOMES,
  decodeAuditCursor,
  ERROR_CODES,
  type AuditQuery,
} from '@custos/contracts';
import { problems } from '../http/problem';
import type { ParamSpecs } from '../routes/route';
import type { AuditFilter } from './audit-query';

const TIME = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,9})?(Z|[+-]\\d{2}:\\d{2})$';
const text = (description: string) => ({ schema: Type.String({ minLength: 1, maxLength: 512 }), description });

/** The query parameters of a page of the audit trail, the same on pap (`/ws/audit`) and auth (`/audit`). */
export const AUDIT_QUERY_PARAMS = {
  who: text('records of this client id'),
  operation: text('an operation (`policy.deploy`), or every operation of a family (`policy`)'),
  target: text('records of this id (document, component, solution, client)'),
  outcome: { schema: Type.Union(AUDIT_OUTCOMES.map((name) => Type.Literal(name))), description: '`accepted`, `refused` or `failed`' },
  since: { schema: Type.String({ pattern: TIME }), description: 'records at or after this time (RFC 3339)' },
  until: { schema: Type.String({ pattern: TIME }), description: 'records before this time (RFC 3339)' },
  limit: {
    schema: Type.Integer({ minimum: 1, maximum: AUDIT_MAX_LIMIT }),
    description: `records per page (default ${AUDIT_DEFAULT_LIMIT}, at most ${AUDIT_MAX_LIMIT})`,
    normalize: (value: string) => (/^\d{1,6}$/.test(value) ? Number(value) : value),
  },
  cursor: { schema: Type.String({ maxLength: 128 }), description: 'the `next` of the page before' },
} satisfies ParamSpecs;

/** The checked query values, as the route's handler has them: the wire's query, any member absent. */
type AuditQueryValues = { [K in keyof AuditQuery]?: AuditQuery[K] | undefined };

/** The filter of checked query values; a 400 naming `cursor` when it is not one this trail gave. */
export function auditFilterOf(query: AuditQueryValues): AuditFilter {
  const after = query.cursor === undefined ? undefined : decodeAuditCursor(query.cursor);
  if (query.cursor !== undefined && after === undefined) {
    throw problems.badRequest(ERROR_CODES.invalidRequest, 'the query parameter `cursor` is not valid', [
      { path: 'cursor', message: 'not a cursor of this trail: pass the `next` of the page before' },
    ]);
  }
  const filter: AuditFilter = { limit: query.limit ?? AUDIT_DEFAULT_LIMIT };
  for (const key of ['who', 'operation', 'target', 'outcome', 'since', 'until'] as const) {
    const value = query[key];
    if (value !== undefined) Object.assign(filter, { [key]: value });
  }
  if (after) filter.after = after;
  return filter;
}
