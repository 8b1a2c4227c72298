import { SCOPES } from '@custos/contracts';
import { jsonResponse, principalOf } from '@custos/service-kit';
import type { DocumentKind } from '../documents/kind';
import type { DocumentMetadata } from '../store/documents';
import { solutionFilterOf } from '../store/solutions';
import { papRoute } from './context';
import { idSchemaName } from './document-context';
import { common, ref } from './responses';

/** `GET /ws/policy-ids|timer-ids` and `…/deployed`: ids of the caller's solutions' documents, sorted. */
export const documentIds = <M extends DocumentMetadata, R>(kind: DocumentKind<M, R>, deployedOnly: boolean) =>
  papRoute({
    method: 'get',
    path: `/ws/${kind.name}-ids${deployedOnly ? '/deployed' : ''}`,
    summary: `ids of ${deployedOnly ? 'deployed' : 'all'} ${kind.name === 'policy' ? 'policies' : 'timers'}`,
    scope: SCOPES.policyRead,
    responses: { 200: jsonResponse('sorted ids', { type: 'array', items: ref(idSchemaName(kind)) }), ...common },
    handler: async (_req, res, { deps }) => {
      res.json(await deps.storeOf(kind).listIds(solutionFilterOf(principalOf(res)), deployedOnly));
    },
  });
