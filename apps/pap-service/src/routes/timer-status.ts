import { SCOPES } from '@custos/contracts';
import { requireScope } from '@custos/service-kit';
import { timerStatus } from '../store/timers';
import { sendBoolean, timerIdOf, timerIdParam, type RouteFactory } from './context';

/** `GET /ws/timer/{id}/status`: `true` when deployed, else `false` (also for an unknown id). */
export const timerStatusRoute: RouteFactory = (ctx) => [
  requireScope(ctx.verifier, SCOPES.policyRead),
  timerIdParam(SCOPES.policyRead),
  async (_req, res) => {
    sendBoolean(res, await timerStatus(ctx.pool, timerIdOf(res).id));
  },
];
