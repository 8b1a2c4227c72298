import { SCOPES } from '@custos/contracts';
import { requireScope } from '@custos/service-kit';
import { documentIdOf, documentIdParam, sendBoolean } from './context';
import type { DocumentRouteFactory } from './document-context';

/** `GET|POST /ws/policy|timer/{id}/revoke`: `true` when it was deployed and is not any more, else `false`. */
export const revokeDocument: DocumentRouteFactory = ({ verifier, kind, store }) => [
  requireScope(verifier, SCOPES.policyWrite),
  documentIdParam(kind.name, SCOPES.policyWrite),
  async (_req, res) => {
    const outcome = await store.revoke(documentIdOf(res).id);
    sendBoolean(res, outcome.result, outcome.revision);
  },
];
