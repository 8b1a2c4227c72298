import { SCOPES } from '@custos/contracts';
import { requireScope } from '@custos/service-kit';
import { revokePolicy } from '../store/policies';
import { policyIdOf, policyIdParam, sendBoolean, type RouteFactory } from './context';

/** `GET|POST /ws/policy/{id}/revoke`: `true` when it was deployed and is not any more, else `false`. */
export const revokePolicyRoute: RouteFactory = (ctx) => [
  requireScope(ctx.verifier, SCOPES.policyWrite),
  policyIdParam(SCOPES.policyWrite),
  async (_req, res) => {
    const outcome = await revokePolicy(ctx.pool, policyIdOf(res).id);
    if (outcome.changed) ctx.onDeployedSetChange();
    sendBoolean(res, outcome.result, outcome.revision);
  },
];
