import type { Component, ComponentType } from './component';
import type { ProblemError } from './problem';
import { NAME_PATTERN, parseUrn } from './urns';
import { isRecord } from './wire';

const URL_SCHEMES = new Set(['http:', 'https:', 'rmi:']);
const BARE_METHOD = new RegExp(`^${NAME_PATTERN}$`);

/**
 * The rules beyond the schemas, for a component that passed them: `solution` and `type` come from its
 * identifier (undefined when it is not a component URN). Every problem, located by path.
 */
export function componentRuleErrors(component: Component, solution: string | undefined, type: ComponentType | undefined): ProblemError[] {
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
  component.urls.forEach((written, index) => {
    let url: URL | undefined;
    try {
      url = new URL(written);
    } catch {
      url = undefined;
    }
    if (!url || !URL_SCHEMES.has(url.protocol) || url.host === '') {
      errors.push({ path: `urls[${index}]`, message: `\`${written}\` is not an absolute http, https or rmi URL` });
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

/**
 * A PIP/PXP component as pap propagates it, or undefined. pap validated it completely; a receiver checks the shape
 * it relies on (an id, string URLs, interfaces with a method name), so a damaged message cannot break its index.
 */
export function propagatedComponent(value: unknown): Component | undefined {
  if (!isRecord(value) || !isRecord(value.id) || !Array.isArray(value.urls) || !Array.isArray(value.componentInterfaces)) return undefined;
  const { componentType, identifier } = value.id;
  if ((componentType !== 'PIP' && componentType !== 'PXP') || typeof identifier !== 'string') return undefined;
  if (!value.urls.every((url) => typeof url === 'string')) return undefined;
  if (!value.componentInterfaces.every((item) => isRecord(item) && typeof item.methodName === 'string')) return undefined;
  return value as unknown as Component;
}
