import { SCOPES } from '@custos/contracts';
import { requireScope } from '@custos/service-kit';
import { deployPolicy } from '../store/policies';
import { policyIdOf, policyIdParam, sendBoolean, type RouteFactory } from './context';

/** `POST /ws/policy/{id}/deploy`: `true` when deployed after the call (idempotent), `false` when no such policy. */
export const deployPolicyRoute: RouteFactory = (ctx) => [
  requireScope(ctx.verifier, SCOPES.policyWrite),
  policyIdParam(SCOPES.policyWrite),
  async (_req, res) => {
    const outcome = await deployPolicy(ctx.pool, policyIdOf(res).id);
    if (outcome.changed) ctx.onDeployedSetChange();
    sendBoolean(res, outcome.result, outcome.revision);
  },
];
