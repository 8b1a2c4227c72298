import { SCOPES } from '@custos/contracts';
import { principalOf, requireScope } from '@custos/service-kit';
import { listPolicyIds } from '../store/policies';
import { solutionFilterOf } from '../store/solutions';
import type { RouteFactory } from './context';

/** `GET /ws/policy-ids/deployed`: ids of the deployed policies of the caller's solutions, sorted. */
export const deployedPolicyIds: RouteFactory = (ctx) => [
  requireScope(ctx.verifier, SCOPES.policyRead),
  async (_req, res) => {
    res.json(await listPolicyIds(ctx.pool, solutionFilterOf(principalOf(res)), true));
  },
];
