import { SCOPES } from '@custos/contracts';
import { foreignSolution, principalOf, problems, requireScope, xmlBody } from '@custos/service-kit';
import { insertTimer } from '../store/timers';
import { sendBoolean, type RouteFactory } from './context';
import { TIMER_BODY_LIMIT, toTimerRecord, validateTimer } from './timer-validation';

/** `POST /ws/timer` (XML): stores a new, undeployed timer. 201 `true` with `Location`; 409 if the id exists. */
export const addTimer: RouteFactory = (ctx) => [
  requireScope(ctx.verifier, SCOPES.policyWrite),
  xmlBody(TIMER_BODY_LIMIT),
  async (req, res) => {
    const xml = req.body as string;
    const timer = validateTimer(xml);
    // Checked before the duplicate test, so a foreign id is never confirmed to exist.
    if (!principalOf(res).mayAccess(timer.solution)) throw foreignSolution(SCOPES.policyWrite);
    if (!(await insertTimer(ctx.pool, toTimerRecord(timer, xml)))) {
      throw problems.conflict(`a timer \`${timer.id}\` exists already; replace it with PUT`);
    }
    res.setHeader('Location', `/ws/timer/${timer.id}`);
    sendBoolean(res, true, undefined, 201);
  },
];
