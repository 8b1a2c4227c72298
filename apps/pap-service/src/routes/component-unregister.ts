import { SCOPES } from '@custos/contracts';
import { requireScope } from '@custos/service-kit';
import { deleteComponent } from '../store/components';
import { componentIdOf, componentIdParam, sendBoolean, type RouteFactory } from './context';

/**
 * `DELETE /ws/component/{identifier}`: `true` when it was registered and is gone, else `false`; removing a PIP or
 * PXP gets a revision (`Policy-Revision`).
 */
export const unregisterComponent: RouteFactory = (ctx) => [
  requireScope(ctx.verifier, SCOPES.componentWrite),
  componentIdParam(SCOPES.componentWrite),
  async (_req, res) => {
    const outcome = await deleteComponent(ctx.pool, ctx.onDeployedSetChange, componentIdOf(res).id);
    sendBoolean(res, outcome.result, outcome.revision);
  },
];
