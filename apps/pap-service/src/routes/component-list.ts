import { COMPONENT_TYPES, ERROR_CODES, SCOPES, type ComponentType } from '@custos/contracts';
import { principalOf, problems, requireScope } from '@custos/service-kit';
import { listComponents } from '../store/components';
import { solutionFilterOf } from '../store/solutions';
import type { RouteFactory } from './context';

function typeFilter(raw: unknown): ComponentType | undefined {
  if (raw === undefined) return undefined;
  const type = typeof raw === 'string' ? raw.toUpperCase() : undefined;
  if (type === undefined || !(COMPONENT_TYPES as readonly string[]).includes(type)) {
    throw problems.badRequest(ERROR_CODES.invalidRequest, 'the query parameter `type` is not valid', [
      { path: 'type', message: `must be one of ${COMPONENT_TYPES.map((t) => `\`${t}\``).join(', ')}` },
    ]);
  }
  return type as ComponentType;
}

/** `GET /ws/component?type=PEP|PIP|PXP`: the components of the caller's solutions, by id. */
export const listComponentsRoute: RouteFactory = (ctx) => [
  requireScope(ctx.verifier, SCOPES.componentRead),
  async (req, res) => {
    const type = typeFilter(req.query.type);
    res.json(await listComponents(ctx.pool, solutionFilterOf(principalOf(res)), type));
  },
];
