import { SCOPES } from '@custos/contracts';
import { requireScope } from '@custos/service-kit';
import { removePolicy } from '../store/policies';
import { policyIdOf, policyIdParam, sendBoolean, type RouteFactory } from './context';

/** `DELETE /ws/policy/{id}`: `true` when it existed and is gone (revoked first in the same transaction). */
export const removePolicyRoute: RouteFactory = (ctx) => [
  requireScope(ctx.verifier, SCOPES.policyWrite),
  policyIdParam(SCOPES.policyWrite),
  async (_req, res) => {
    const outcome = await removePolicy(ctx.pool, policyIdOf(res).id);
    if (outcome.changed) ctx.onDeployedSetChange();
    sendBoolean(res, outcome.result, outcome.revision);
  },
];
