import { SCOPES } from '@custos/contracts';
import { requireScope } from '@custos/service-kit';
import { documentIdOf, documentIdParam, sendBoolean } from './context';
import type { DocumentRouteFactory } from './document-context';

/** `POST /ws/policy|timer/{id}/deploy`: `true` when deployed after the call (idempotent), `false` when no such document. */
export const deployDocument: DocumentRouteFactory = ({ verifier, kind, store }) => [
  requireScope(verifier, SCOPES.policyWrite),
  documentIdParam(kind.name, SCOPES.policyWrite),
  async (_req, res) => {
    const outcome = await store.deploy(documentIdOf(res).id);
    sendBoolean(res, outcome.result, outcome.revision);
  },
];
