import { ERROR_CODES, SCOPES } from '@custos/contracts';
import { problems, requireScope, xmlBody } from '@custos/service-kit';
import { replacePolicy } from '../store/policies';
import { policyIdOf, policyIdParam, sendBoolean, type RouteFactory } from './context';
import { POLICY_BODY_LIMIT, toRecord, validatePolicy } from './policy-validation';

/**
 * `PUT /ws/policy/{id}` (XML with the same id): replaces the policy's text. A deployed policy is
 * re-deployed atomically with a new revision (answered in `Policy-Revision`).
 */
export const replacePolicyRoute: RouteFactory = (ctx) => [
  requireScope(ctx.verifier, SCOPES.policyWrite),
  policyIdParam(SCOPES.policyWrite),
  xmlBody(POLICY_BODY_LIMIT),
  async (req, res) => {
    const { id } = policyIdOf(res);
    const xml = req.body as string;
    const policy = validatePolicy(xml);
    if (policy.id !== id) {
      throw problems.badRequest(ERROR_CODES.invalidPolicy, 'the policy id in the body differs from the id in the URL', [
        { message: `the policy id \`${policy.id}\` does not match \`${id}\` of the URL` },
      ]);
    }
    const outcome = await replacePolicy(ctx.pool, toRecord(policy, xml));
    if (!outcome.found) throw problems.notFound(`no policy \`${id}\``);
    if (outcome.revision !== undefined) ctx.onDeployedSetChange();
    sendBoolean(res, true, outcome.revision);
  },
];
