import { SCOPES } from '@custos/contracts';
import { requireScope } from '@custos/service-kit';
import { documentIdOf, documentIdParam, sendBoolean } from './context';
import type { DocumentRouteFactory } from './document-context';

/** `GET /ws/policy|timer/{id}/status`: `true` when deployed, else `false` (also for an unknown id). */
export const documentStatus: DocumentRouteFactory = ({ verifier, kind, store }) => [
  requireScope(verifier, SCOPES.policyRead),
  documentIdParam(kind.name, SCOPES.policyRead),
  async (_req, res) => {
    sendBoolean(res, await store.status(documentIdOf(res).id));
  },
];
