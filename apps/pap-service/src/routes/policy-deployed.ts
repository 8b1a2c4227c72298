import { SCOPES } from '@custos/contracts';
import { principalOf, requireScope } from '@custos/service-kit';
import { listPolicies, toPolicy } from '../store/policies';
import { solutionFilterOf } from '../store/solutions';
import type { RouteFactory } from './context';

/** `GET /ws/policy/deployed`: the deployed policies of the caller's solutions, by id. */
export const deployedPolicies: RouteFactory = (ctx) => [
  requireScope(ctx.verifier, SCOPES.policyRead),
  async (_req, res) => {
    const rows = await listPolicies(ctx.pool, solutionFilterOf(principalOf(res)), true);
    res.json(rows.map(toPolicy));
  },
];
