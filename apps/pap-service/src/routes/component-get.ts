import { SCOPES } from '@custos/contracts';
import { problems, requireScope } from '@custos/service-kit';
import { findComponent } from '../store/components';
import { componentIdOf, componentIdParam, type RouteFactory } from './context';

/** `GET /ws/component/{identifier}`: the component as registered; 404 if unknown. */
export const getComponent: RouteFactory = (ctx) => [
  requireScope(ctx.verifier, SCOPES.componentRead),
  componentIdParam(SCOPES.componentRead),
  async (_req, res) => {
    const { id } = componentIdOf(res);
    const component = await findComponent(ctx.pool, id);
    if (!component) throw problems.notFound(`no component \`${id}\``);
    res.json(component);
  },
];
