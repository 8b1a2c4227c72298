import { SCOPES } from '@custos/contracts';
import type { DocumentKind } from '../documents/kind';
import type { DocumentMetadata } from '../store/documents';
import { documentIdParam, papRoute, sendBoolean } from './context';
import { badId, booleanAnswer, common } from './responses';

/** `GET /ws/policy|timer/{id}/status`: `true` when deployed, else `false` (also for an unknown id). */
export const documentStatus = <M extends DocumentMetadata, R>(kind: DocumentKind<M, R>) =>
  papRoute({
    method: 'get',
    path: `/ws/${kind.name}/{id}/status`,
    summary: `${kind.name === 'policy' ? '' : 'timer '}deployment status`,
    scope: SCOPES.policyRead,
    params: { id: documentIdParam(kind.name, SCOPES.policyRead) },
    responses: { 200: booleanAnswer('`true` when deployed, else `false`'), 400: badId, ...common },
    handler: async (_req, res, { deps, params }) => {
      sendBoolean(res, await deps.storeOf(kind).status(params.id.id));
    },
  });
