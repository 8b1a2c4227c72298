import { SCOPES } from '@custos/contracts';
import { principalOf, requireScope } from '@custos/service-kit';
import { listPolicyIds } from '../store/policies';
import { solutionFilterOf } from '../store/solutions';
import type { RouteFactory } from './context';

/** `GET /ws/policy-ids`: ids of every policy of the caller's solutions, sorted. */
export const policyIds: RouteFactory = (ctx) => [
  requireScope(ctx.verifier, SCOPES.policyRead),
  async (_req, res) => {
    res.json(await listPolicyIds(ctx.pool, solutionFilterOf(principalOf(res)), false));
  },
];
