import { SCOPES } from '@custos/contracts';
import { foreignSolution, principalOf, problems, requireScope, xmlBody } from '@custos/service-kit';
import { insertPolicy } from '../store/policies';
import { sendBoolean, type RouteFactory } from './context';
import { POLICY_BODY_LIMIT, toRecord, validatePolicy } from './policy-validation';

/** `POST /ws/policy` (XML): stores a new, undeployed policy. 201 `true` with `Location`; 409 if the id exists. */
export const addPolicy: RouteFactory = (ctx) => [
  requireScope(ctx.verifier, SCOPES.policyWrite),
  xmlBody(POLICY_BODY_LIMIT),
  async (req, res) => {
    const xml = req.body as string;
    const policy = validatePolicy(xml);
    // Checked before the duplicate test, so a foreign id is never confirmed to exist.
    if (!principalOf(res).mayAccess(policy.solution)) throw foreignSolution(SCOPES.policyWrite);
    if (!(await insertPolicy(ctx.pool, toRecord(policy, xml)))) {
      throw problems.conflict(`a policy \`${policy.id}\` exists already; replace it with PUT`);
    }
    res.setHeader('Location', `/ws/policy/${policy.id}`);
    sendBoolean(res, true, undefined, 201);
  },
];
