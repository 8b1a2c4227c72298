import { ERROR_CODES, SCOPES } from '@custos/contracts';
import { problems, requireScope, xmlBody } from '@custos/service-kit';
import { replaceTimer } from '../store/timers';
import { sendBoolean, timerIdOf, timerIdParam, type RouteFactory } from './context';
import { TIMER_BODY_LIMIT, toTimerRecord, validateTimer } from './timer-validation';

/** `PUT /ws/timer/{id}` (XML with the same id): replaces the timer; a deployed one is re-deployed atomically. */
export const replaceTimerRoute: RouteFactory = (ctx) => [
  requireScope(ctx.verifier, SCOPES.policyWrite),
  timerIdParam(SCOPES.policyWrite),
  xmlBody(TIMER_BODY_LIMIT),
  async (req, res) => {
    const { id } = timerIdOf(res);
    const xml = req.body as string;
    const timer = validateTimer(xml);
    if (timer.id !== id) {
      throw problems.badRequest(ERROR_CODES.invalidPolicy, 'the timer id in the body differs from the id in the URL', [
        { message: `the timer id \`${timer.id}\` does not match \`${id}\` of the URL` },
      ]);
    }
    const outcome = await replaceTimer(ctx.pool, toTimerRecord(timer, xml));
    if (!outcome.found) throw problems.notFound(`no timer \`${id}\``);
    if (outcome.revision !== undefined) ctx.onDeployedSetChange();
    sendBoolean(res, true, outcome.revision);
  },
];
