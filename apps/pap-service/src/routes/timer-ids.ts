import { SCOPES } from '@custos/contracts';
import { principalOf, requireScope } from '@custos/service-kit';
import { solutionFilterOf } from '../store/solutions';
import { listTimerIds } from '../store/timers';
import type { RouteFactory } from './context';

/** `GET /ws/timer-ids` and `GET /ws/timer-ids/deployed`: ids of the caller's solutions' timers, sorted. */
export const timerIds =
  (deployedOnly: boolean): RouteFactory =>
  (ctx) => [
    requireScope(ctx.verifier, SCOPES.policyRead),
    async (_req, res) => {
      res.json(await listTimerIds(ctx.pool, solutionFilterOf(principalOf(res)), deployedOnly));
    },
  ];
