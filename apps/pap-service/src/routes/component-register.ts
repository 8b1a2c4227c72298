import { SCOPES } from '@custos/contracts';
import { foreignSolution, jsonBody, principalOf, requireScope } from '@custos/service-kit';
import { upsertComponent } from '../store/components';
import { validateComponent } from './component-schema';
import { sendBoolean, type RouteFactory } from './context';

export const COMPONENT_BODY_LIMIT = 1024 * 1024;

/** `POST /ws/component`: registers a component; the same id again replaces it. Answers `true`. */
export const registerComponent: RouteFactory = (ctx) => [
  requireScope(ctx.verifier, SCOPES.componentWrite),
  jsonBody(COMPONENT_BODY_LIMIT),
  async (req, res) => {
    const { component, solution } = validateComponent(req.body);
    if (!principalOf(res).mayAccess(solution)) throw foreignSolution(SCOPES.componentWrite);
    await upsertComponent(ctx.pool, solution, component);
    sendBoolean(res, true);
  },
];
