import { HEADERS, SCOPES, formatWarning } from '@custos/contracts';
import { foreignSolution, jsonBody, principalOf, requireScope } from '@custos/service-kit';
import { upsertComponent } from '../store/components';
import { validateComponent } from './component-schema';
import { sendBoolean, type RouteFactory } from './context';

export const COMPONENT_BODY_LIMIT = 1024 * 1024;

/**
 * `POST /ws/component`: registers a component; the same id again replaces it. Answers `true`, with
 * `Policy-Revision`: a new or changed PIP/PXP gets a revision (the pdps call them), anything else answers the
 * current one; and a `Custos-Warning` line per URL the pdps' default egress policy refuses to call.
 */
export const registerComponent: RouteFactory = (ctx) => [
  requireScope(ctx.verifier, SCOPES.componentWrite),
  jsonBody(COMPONENT_BODY_LIMIT),
  async (req, res) => {
    const { component, solution, warnings } = validateComponent(req.body);
    if (!principalOf(res).mayAccess(solution)) throw foreignSolution(SCOPES.componentWrite);
    const outcome = await upsertComponent(ctx.pool, ctx.onDeployedSetChange, solution, component);
    for (const warning of warnings) res.append(HEADERS.warning, formatWarning(warning));
    sendBoolean(res, true, outcome.revision);
  },
];
