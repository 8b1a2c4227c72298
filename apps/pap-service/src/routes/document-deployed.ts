import { SCOPES } from '@custos/contracts';
import { principalOf, requireScope } from '@custos/service-kit';
import { solutionFilterOf } from '../store/solutions';
import type { DocumentRouteFactory } from './document-context';

/** `GET /ws/policy/deployed`: the deployed documents of the caller's solutions in full, by id. */
export const deployedDocuments: DocumentRouteFactory = ({ verifier, kind, store }) => [
  requireScope(verifier, SCOPES.policyRead),
  async (_req, res) => {
    const rows = await store.list(solutionFilterOf(principalOf(res)), true);
    res.json(rows.map((row) => kind.toResource(row)));
  },
];
