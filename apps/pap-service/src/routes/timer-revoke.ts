import { SCOPES } from '@custos/contracts';
import { requireScope } from '@custos/service-kit';
import { revokeTimer } from '../store/timers';
import { sendBoolean, timerIdOf, timerIdParam, type RouteFactory } from './context';

/** `GET|POST /ws/timer/{id}/revoke`: `true` when it was deployed and is not any more, else `false`. */
export const revokeTimerRoute: RouteFactory = (ctx) => [
  requireScope(ctx.verifier, SCOPES.policyWrite),
  timerIdParam(SCOPES.policyWrite),
  async (_req, res) => {
    const outcome = await revokeTimer(ctx.pool, timerIdOf(res).id);
    if (outcome.changed) ctx.onDeployedSetChange();
    sendBoolean(res, outcome.result, outcome.revision);
  },
];
