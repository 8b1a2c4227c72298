import { ERROR_CODES, SCOPES } from '@custos/contracts';
import { HttpProblem, problems, requireScope } from '@custos/service-kit';
import { findPolicy, toPolicy } from '../store/policies';
import { policyIdOf, policyIdParam, type RouteFactory } from './context';

const REPRESENTATIONS = ['application/json', 'application/xml', 'text/xml'];

/** `GET /ws/policy/{id}`: the Policy as JSON, or with `Accept: application/xml` the XML as stored; 404 if unknown. */
export const showPolicy: RouteFactory = (ctx) => [
  requireScope(ctx.verifier, SCOPES.policyRead),
  policyIdParam(SCOPES.policyRead),
  async (req, res) => {
    const representation = req.accepts(REPRESENTATIONS);
    if (representation === false) {
      throw new HttpProblem(
        406,
        ERROR_CODES.notAcceptable,
        `a policy is available as ${REPRESENTATIONS.map((t) => `\`${t}\``).join(', ')}`,
      );
    }
    const { id } = policyIdOf(res);
    const row = await findPolicy(ctx.pool, id);
    if (!row) throw problems.notFound(`no policy \`${id}\``);
    res.vary('Accept');
    if (representation === 'application/json') {
      res.json(toPolicy(row));
    } else {
      res.type(representation).send(row.xml);
    }
  },
];
