import { SCOPES } from '@custos/contracts';
import { requireScope } from '@custos/service-kit';
import { removeTimer } from '../store/timers';
import { sendBoolean, timerIdOf, timerIdParam, type RouteFactory } from './context';

/** `DELETE /ws/timer/{id}`: `true` when it existed and is gone (revoked first in the same transaction). */
export const removeTimerRoute: RouteFactory = (ctx) => [
  requireScope(ctx.verifier, SCOPES.policyWrite),
  timerIdParam(SCOPES.policyWrite),
  async (_req, res) => {
    const outcome = await removeTimer(ctx.pool, timerIdOf(res).id);
    if (outcome.changed) ctx.onDeployedSetChange();
    sendBoolean(res, outcome.result, outcome.revision);
  },
];
