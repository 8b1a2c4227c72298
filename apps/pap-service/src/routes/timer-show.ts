import { ERROR_CODES, SCOPES } from '@custos/contracts';
import { HttpProblem, problems, requireScope } from '@custos/service-kit';
import { findTimer, toTimer } from '../store/timers';
import { timerIdOf, timerIdParam, type RouteFactory } from './context';

const REPRESENTATIONS = ['application/json', 'application/xml', 'text/xml'];

/** `GET /ws/timer/{id}`: the timer as JSON, or with `Accept: application/xml` the XML as stored; 404 if unknown. */
export const showTimer: RouteFactory = (ctx) => [
  requireScope(ctx.verifier, SCOPES.policyRead),
  timerIdParam(SCOPES.policyRead),
  async (req, res) => {
    const representation = req.accepts(REPRESENTATIONS);
    if (representation === false) {
      throw new HttpProblem(406, ERROR_CODES.notAcceptable, `a timer is available as ${REPRESENTATIONS.map((t) => `\`${t}\``).join(', ')}`);
    }
    const { id } = timerIdOf(res);
    const row = await findTimer(ctx.pool, id);
    if (!row) throw problems.notFound(`no timer \`${id}\``);
    res.vary('Accept');
    if (representation === 'application/json') res.json(toTimer(row));
    else res.type(representation).send(row.xml);
  },
];
