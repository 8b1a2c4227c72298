import {
  ERROR_CODES,
  componentRuleErrors,
  componentSchema,
  interfaceSchema,
  parseComponentUrn,
  pepInterfaceSchema,
  type Component,
  type ProblemError,
  type Warning,
} from '@custos/contracts';
import { compileValidator, HttpProblem, problems } from '@custos/service-kit';
import { componentEgress } from './component-egress';

/**
 * The Component body of api.md §4, checked against the schemas of contracts in two stages (the envelope, then the
 * interfaces against the type's shape) and then by the rules JSON Schema cannot state (`componentRuleErrors`).
 */
const validateEnvelope = compileValidator<Component>(componentSchema);
const interfacesOf = (items: object) => ({
  type: 'object',
  properties: { componentInterfaces: { type: 'array', items } },
});
const validatePepInterfaces = compileValidator<unknown>(interfacesOf(pepInterfaceSchema));
const validateInterfaces = compileValidator<unknown>(interfacesOf(interfaceSchema));

const DETAIL = 'the component is not valid';

function schemaErrors(run: () => void): ProblemError[] {
  try {
    run();
    return [];
  } catch (error) {
    if (error instanceof HttpProblem) return error.errors ?? [];
    throw error;
  }
}

function unique(errors: ProblemError[]): ProblemError[] {
  const seen = new Set<string>();
  return errors.filter((error) => {
    const key = `${error.path ?? ''}|${error.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * The validated component, its solution and the warnings its registration answers with (URLs the pdps' default
 * egress policy refuses), or a 400 `invalid_component` listing every problem.
 */
export function validateComponent(body: unknown): { component: Component; solution: string; warnings: Warning[] } {
  const errors = schemaErrors(() => validateEnvelope.assert(body, ERROR_CODES.invalidComponent, DETAIL));
  const envelope = body as { id?: { componentType?: unknown }; componentInterfaces?: unknown };
  const declared = envelope?.id?.componentType;
  if (typeof body === 'object' && body !== null && Array.isArray(envelope.componentInterfaces)) {
    const wrapped = { componentInterfaces: envelope.componentInterfaces };
    if (declared === 'PEP') {
      errors.push(...schemaErrors(() => validatePepInterfaces.assert(wrapped, ERROR_CODES.invalidComponent, DETAIL)));
    } else if (declared === 'PIP' || declared === 'PXP') {
      errors.push(...schemaErrors(() => validateInterfaces.assert(wrapped, ERROR_CODES.invalidComponent, DETAIL)));
    }
  }
  if (errors.length > 0) throw problems.badRequest(ERROR_CODES.invalidComponent, DETAIL, unique(errors));
  const component = body as Component;
  const parsed = parseComponentUrn(component.id.identifier);
  const egress = componentEgress(component);
  const rules = [...componentRuleErrors(component, parsed?.solution, parsed?.type), ...egress.errors];
  if (rules.length > 0 || !parsed) throw problems.badRequest(ERROR_CODES.invalidComponent, DETAIL, rules);
  return { component, solution: parsed.solution, warnings: egress.warnings };
}
