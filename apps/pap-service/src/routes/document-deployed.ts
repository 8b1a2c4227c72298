import { SCOPES } from '@custos/contracts';
import { jsonResponse, principalOf } from '@custos/service-kit';
import type { DocumentKind } from '../documents/kind';
import type { DocumentMetadata } from '../store/documents';
import { solutionFilterOf } from '../store/solutions';
import { papRoute } from './context';
import { resourceSchemaName } from './document-context';
import { common, ref } from './responses';

/** `GET /ws/policy/deployed`: the deployed documents of the caller's solutions in full, by id. */
export const deployedDocuments = <M extends DocumentMetadata, R>(kind: DocumentKind<M, R>) =>
  papRoute({
    method: 'get',
    path: `/ws/${kind.name}/deployed`,
    summary: `list deployed ${kind.name === 'policy' ? 'policies' : 'timers'}`,
    description: `Deployed ${kind.name === 'policy' ? 'policies' : 'timers'} of the solutions in the token, ordered by id.`,
    scope: SCOPES.policyRead,
    responses: { 200: jsonResponse('the documents', { type: 'array', items: ref(resourceSchemaName(kind)) }), ...common },
    handler: async (_req, res, { deps }) => {
      const rows = await deps.storeOf(kind).list(solutionFilterOf(principalOf(res)), true);
      res.json(rows.map((row) => kind.toResource(row)));
    },
  });
