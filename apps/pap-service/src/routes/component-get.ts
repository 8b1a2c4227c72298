import { SCOPES } from '@custos/contracts';
import { jsonResponse, problems } from '@custos/service-kit';
import { findComponent } from '../store/components';
import { componentOperation, papRoute } from './context';
import { badId, common, problem, ref } from './responses';

/** `GET /ws/component/{identifier}`: the component as registered; 404 if unknown. */
export const getComponent = papRoute({
  method: 'get',
  summary: 'look up a component',
  ...componentOperation(SCOPES.componentRead),
  responses: { 200: jsonResponse('the component as registered', ref('Component')), 400: badId, 404: problem('no such component'), ...common },
  handler: async (_req, res, { deps, params }) => {
    const { id } = params.identifier;
    const component = await findComponent(deps.pool, id);
    if (!component) throw problems.notFound(`no component \`${id}\``);
    res.json(component);
  },
});
