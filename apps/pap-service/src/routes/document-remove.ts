import { SCOPES } from '@custos/contracts';
import { requireScope } from '@custos/service-kit';
import { documentIdOf, documentIdParam, sendBoolean } from './context';
import type { DocumentRouteFactory } from './document-context';

/** `DELETE /ws/policy|timer/{id}`: `true` when it existed and is gone (revoked first in the same transaction). */
export const removeDocument: DocumentRouteFactory = ({ verifier, kind, store }) => [
  requireScope(verifier, SCOPES.policyWrite),
  documentIdParam(kind.name, SCOPES.policyWrite),
  async (_req, res) => {
    const outcome = await store.remove(documentIdOf(res).id);
    sendBoolean(res, outcome.result, outcome.revision);
  },
];
