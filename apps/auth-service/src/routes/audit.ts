import { Type } from '@sinclair/typebox';
import { auditRecordSchema, SCOPES } from '@custos/contracts';
import { AUDIT_QUERY_PARAMS, auditFilterOf, jsonResponse, problemResponse as problem } from '@custos/service-kit';
import { authRoute } from './context';
import { adminErrors } from './responses';

/**
 * `GET /audit`: one page of auth's own audit trail (clients, secrets, revocations, signing keys), newest first. pap's
 * `GET /ws/audit` reads it with the caller's token and merges it with its own; `next` is left to pap.
 */
export const auditRoute = authRoute({
  method: 'get',
  path: '/audit',
  tags: ['audit'],
  summary: "auth's audit trail (pap's `GET /ws/audit` merges it with its own)",
  scope: SCOPES.auditRead,
  query: AUDIT_QUERY_PARAMS,
  responses: {
    200: jsonResponse('a page of records, newest first', Type.Object({ records: Type.Array(auditRecordSchema) })),
    400: problem('a filter is not valid; `errors` name it'),
    ...adminErrors,
    403: problem('the token lacks `audit:read`'),
  },
  handler: async (_req, res, { deps, query }) => {
    res.status(200).json({ records: await deps.audit.query(auditFilterOf(query)) });
  },
});
