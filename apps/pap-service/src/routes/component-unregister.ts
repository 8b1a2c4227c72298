import { SCOPES } from '@custos/contracts';
import { deleteComponent } from '../store/components';
import { audited, revisionOf } from './audited';
import { componentOperation, papRoute, sendBoolean } from './context';
import { badId, booleanAnswer, common } from './responses';

/**
 * `DELETE /ws/component/{identifier}`: `true` when it was registered and is gone, else `false`; removing a PIP or
 * PXP gets a revision (`Policy-Revision`).
 */
export const unregisterComponent = papRoute({
  method: 'delete',
  summary: 'unregister a component',
  ...componentOperation(SCOPES.componentWrite),
  responses: {
    200: booleanAnswer('`true` when it was registered, else `false`; removing a PIP/PXP gets a new revision (`Policy-Revision`)', true),
    400: badId,
    ...common,
  },
  handler: async (_req, res, { deps, params }) => {
    const outcome = await deleteComponent(deps.pool, deps.onDeployedSetChange, params.identifier.id, audited(deps, res, (done) => (done.result ? { revision: revisionOf(done) } : undefined)));
    sendBoolean(res, outcome.result, outcome.revision);
  },
});
