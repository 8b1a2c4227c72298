import { SCOPES } from '@custos/contracts';
import type { DocumentKind } from '../documents/kind';
import type { DocumentMetadata } from '../store/documents';
import { audited, revisionOf } from './audited';
import { documentIdParam, papRoute, sendBoolean } from './context';
import { badId, booleanAnswer, common } from './responses';

/** `DELETE /ws/policy|timer/{id}`: `true` when it existed and is gone (revoked first in the same transaction). */
export const removeDocument = <M extends DocumentMetadata, R>(kind: DocumentKind<M, R>) =>
  papRoute({
    method: 'delete',
    path: `/ws/${kind.name}/{id}`,
    summary: `remove a ${kind.name}`,
    description: `Removes the ${kind.name}; a deployed one is revoked first, in the same transaction.`,
    scope: SCOPES.policyWrite,
    params: { id: documentIdParam(kind.name, SCOPES.policyWrite) },
    responses: { 200: booleanAnswer('`true` when it existed and is gone, else `false`', true), 400: badId, ...common },
    handler: async (_req, res, { deps, params }) => {
      const outcome = await deps.storeOf(kind).remove(params.id.id, audited(deps, res, (done) => (done.result ? { revision: revisionOf(done) } : undefined)));
      sendBoolean(res, outcome.result, outcome.revision);
    },
  });
