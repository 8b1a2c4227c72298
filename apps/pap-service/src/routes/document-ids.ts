import { SCOPES } from '@custos/contracts';
import { principalOf, requireScope } from '@custos/service-kit';
import { solutionFilterOf } from '../store/solutions';
import type { DocumentRouteFactory } from './document-context';

/** `GET /ws/policy-ids|timer-ids` and `…/deployed`: ids of the caller's solutions' documents, sorted. */
export const documentIds =
  (deployedOnly: boolean): DocumentRouteFactory =>
  ({ verifier, store }) => [
    requireScope(verifier, SCOPES.policyRead),
    async (_req, res) => {
      res.json(await store.listIds(solutionFilterOf(principalOf(res)), deployedOnly));
    },
  ];
