import { SCOPES } from '@custos/contracts';
import { requireScope } from '@custos/service-kit';
import { policyStatus } from '../store/policies';
import { policyIdOf, policyIdParam, sendBoolean, type RouteFactory } from './context';

/** `GET /ws/policy/{id}/status`: `true` when deployed, else `false` (also for an unknown id). */
export const policyStatusRoute: RouteFactory = (ctx) => [
  requireScope(ctx.verifier, SCOPES.policyRead),
  policyIdParam(SCOPES.policyRead),
  async (_req, res) => {
    sendBoolean(res, await policyStatus(ctx.pool, policyIdOf(res).id));
  },
];
