import { auditPageSchema, compareAuditRecords, encodeAuditCursor, SCOPES, sequenceOf, type AuditPage, type AuditRecord } from '@custos/contracts';
import { AUDIT_QUERY_PARAMS, auditFilterOf, jsonResponse, problemResponse } from '@custos/service-kit';
import { papRoute } from './context';

/**
 * `GET /ws/audit`: one page of the audit trail of management, pap's records and auth's merged newest first. Auth
 * keeps its own records and is asked for the same page with the caller's token; when it cannot be read, the page
 * has pap's records and `incomplete: ["auth"]`.
 */
export const auditRoute = papRoute({
  method: 'get',
  path: '/ws/audit',
  tags: ['audit'],
  summary: 'the audit trail of management (pap and auth), newest first',
  description:
    'Every change of components, policies, timers, solution settings, change sets, clients, signing keys and revocations, and every ' +
    'refused or failed attempt at one: who, what, when, from where, outcome. Filters combine; `next` is the cursor of the next page.',
  scope: SCOPES.auditRead,
  query: AUDIT_QUERY_PARAMS,
  responses: {
    200: jsonResponse('a page of records', auditPageSchema),
    400: problemResponse('a filter is not valid; `errors` name it'),
    401: problemResponse('no valid token'),
    403: problemResponse('the token lacks `audit:read`'),
  },
  handler: async (req, res, { deps, query }) => {
    const filter = auditFilterOf(query);
    const [own, auth] = await Promise.all([deps.audit.query(filter), deps.authTrail?.(filter, req.headers.authorization)]);
    const merged = [...own, ...(auth ?? [])].sort(compareAuditRecords);
    const records = merged.slice(0, filter.limit);
    const more = merged.length > filter.limit || own.length === filter.limit || (auth?.length ?? 0) === filter.limit;
    const last = records.at(-1);
    const page: AuditPage = {
      records,
      next: more && last ? cursorOf(last) : null,
      incomplete: deps.authTrail && auth === undefined ? ['auth'] : [],
    };
    res.status(200).json(page);
  },
});

const cursorOf = (record: AuditRecord): string => encodeAuditCursor({ at: record.at, service: record.service, seq: sequenceOf(record) });
