import { COMPONENT_TYPES, SCOPES, componentTypeSchema } from '@custos/contracts';
import { jsonResponse, principalOf } from '@custos/service-kit';
import { listComponents } from '../store/components';
import { solutionFilterOf } from '../store/solutions';
import { papRoute } from './context';
import { common, problem, ref } from './responses';

/** `GET /ws/component?type=PEP|PIP|PXP`: the components of the caller's solutions, by id. */
export const listComponentsRoute = papRoute({
  method: 'get',
  path: '/ws/component',
  summary: 'list components',
  description: 'Components of the solutions in the token, ordered by id.',
  scope: SCOPES.componentRead,
  query: {
    type: {
      schema: componentTypeSchema,
      description: `one of ${COMPONENT_TYPES.join(', ')}, in any case`,
      normalize: (type: string) => type.toUpperCase(),
    },
  },
  responses: {
    200: jsonResponse('the components', { type: 'array', items: ref('Component') }),
    400: problem('`invalid_request`: unknown `type`'),
    ...common,
  },
  handler: async (_req, res, { deps, query }) => {
    res.json(await listComponents(deps.pool, solutionFilterOf(principalOf(res)), query.type));
  },
});
