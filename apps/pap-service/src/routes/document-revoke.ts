import { SCOPES } from '@custos/contracts';
import type { DocumentKind } from '../documents/kind';
import type { DocumentMetadata } from '../store/documents';
import { audited } from './audited';
import { documentIdParam, papRoute, sendBoolean } from './context';
import { badId, booleanAnswer, common } from './responses';

/** `GET|POST /ws/policy|timer/{id}/revoke`: `true` when it was deployed and is not any more, else `false`. */
export const revokeDocument = <M extends DocumentMetadata, R>(kind: DocumentKind<M, R>, method: 'get' | 'post') =>
  papRoute({
    method,
    path: `/ws/${kind.name}/{id}/revoke`,
    summary: `revoke a ${kind.name}${method === 'post' ? ' (POST form)' : ''}`,
    scope: SCOPES.policyWrite,
    params: { id: documentIdParam(kind.name, SCOPES.policyWrite) },
    responses: { 200: booleanAnswer('`true` when it was deployed and is not any more, else `false`', true), 400: badId, ...common },
    handler: async (_req, res, { deps, params }) => {
      const outcome = await deps.storeOf(kind).revoke(params.id.id, audited(deps, res, (done) => (done.changed ? { revision: done.revision } : undefined)));
      sendBoolean(res, outcome.result, outcome.revision);
    },
  });
