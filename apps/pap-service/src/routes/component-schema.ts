import {
  componentSchema,
  ERROR_CODES,
  interfaceSchema,
  NAME_PATTERN,
  parseComponentUrn,
  parseUrn,
  pepInterfaceSchema,
  type Component,
  type ComponentType,
  type ProblemError,
} from '@custos/contracts';
import { compileValidator, HttpProblem, problems } from '@custos/service-kit';

/**
 * The Component body of api.md §4, strictly: unknown fields are errors, and interface shapes
 * depend on the component type. Checked in two schema stages (the envelope, then the interfaces
 * against the type's shape) and then by rules JSON Schema cannot state (the identifier's type
 * segment, URL schemes, method URNs of the component's own solution). The schemas are the
 * contract's, the very objects pap's OpenAPI document shows.
 */
const validateEnvelope = compileValidator<Component>(componentSchema);
const interfacesOf = (items: object) => ({
  type: 'object',
  properties: { componentInterfaces: { type: 'array', items } },
});
const validatePepInterfaces = compileValidator<unknown>(interfacesOf(pepInterfaceSchema));
const validateInterfaces = compileValidator<unknown>(interfacesOf(interfaceSchema));

const DETAIL = 'the component is not valid';
const URL_SCHEMES = new Set(['http:', 'https:', 'rmi:']);
const BARE_METHOD = new RegExp(`^${NAME_PATTERN}$`);

function schemaErrors(run: () => void): ProblemError[] {
  try {
    run();
    return [];
  } catch (error) {
    if (error instanceof HttpProblem) return error.errors ?? [];
    throw error;
  }
}

function ruleErrors(component: Component, solution: string | undefined, type: ComponentType | undefined): ProblemError[] {
  const errors: ProblemError[] = [];
  if (solution === undefined || type === undefined) {
    errors.push({
      path: 'id.identifier',
      message: `\`${component.id.identifier}\` is not a component id; expected \`urn:component:<solution>:<pep|pip|pxp>:<name>\``,
    });
  } else if (type !== component.id.componentType) {
    errors.push({
      path: 'id.componentType',
      message: `must equal the type segment of the identifier, \`${type}\``,
    });
  }
  component.urls.forEach((text, index) => {
    let url: URL | undefined;
    try {
      url = new URL(text);
    } catch {
      url = undefined;
    }
    if (!url || !URL_SCHEMES.has(url.protocol) || url.host === '') {
      errors.push({ path: `urls[${index}]`, message: `\`${text}\` is not an absolute http, https or rmi URL` });
    }
  });
  if (solution === undefined) return errors;
  component.componentInterfaces.forEach((described, index) => {
    const method = described.methodName;
    const path = `componentInterfaces[${index}].methodName`;
    if (component.id.componentType === 'PIP') {
      const urn = parseUrn('info', method);
      if (urn ? urn.solution !== solution : !BARE_METHOD.test(method)) {
        errors.push({ path, message: `must be \`urn:info:${solution}:<name>\` or a bare method name, got \`${method}\`` });
      }
    } else if (component.id.componentType === 'PXP') {
      if (parseUrn('action', method)?.solution !== solution) {
        errors.push({ path, message: `must be \`urn:action:${solution}:<name>\`, got \`${method}\`` });
      }
    }
  });
  return errors;
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

/** The validated component and its solution, or a 400 `invalid_component` listing every problem. */
export function validateComponent(body: unknown): { component: Component; solution: string } {
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
  const rules = ruleErrors(component, parsed?.solution, parsed?.type);
  if (rules.length > 0 || !parsed) throw problems.badRequest(ERROR_CODES.invalidComponent, DETAIL, rules);
  return { component, solution: parsed.solution };
}
