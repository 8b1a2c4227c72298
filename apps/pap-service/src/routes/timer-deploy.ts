import { SCOPES } from '@custos/contracts';
import { requireScope } from '@custos/service-kit';
import { deployTimer } from '../store/timers';
import { sendBoolean, timerIdOf, timerIdParam, type RouteFactory } from './context';

/** `POST /ws/timer/{id}/deploy`: `true` when deployed after the call (idempotent), `false` when no such timer. */
export const deployTimerRoute: RouteFactory = (ctx) => [
  requireScope(ctx.verifier, SCOPES.policyWrite),
  timerIdParam(SCOPES.policyWrite),
  async (_req, res) => {
    const outcome = await deployTimer(ctx.pool, timerIdOf(res).id);
    if (outcome.changed) ctx.onDeployedSetChange();
    sendBoolean(res, outcome.result, outcome.revision);
  },
];
