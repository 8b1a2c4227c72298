import type { Component, ComponentType, InterfaceDescription, InterfaceParameter, PepInterfaceDescription } from '@custos/contracts';

/** One interface as the registration form holds it (every field text, so inputs stay controlled). */
export interface InterfaceForm {
  methodName: string;
  returnType: string;
  description: string;
  /** PEP only. */
  platform: string;
  context: string;
  action: string;
  preventive: boolean;
  /** One parameter per line: `name: type — description`, `!` after the name for a mandatory PIP/PXP parameter. */
  parameters: string;
}

export interface ComponentForm {
  type: ComponentType;
  solution: string;
  name: string;
  urls: string;
  interfaces: InterfaceForm[];
}

export const emptyInterface = (): InterfaceForm => ({
  methodName: '',
  returnType: 'void',
  description: '',
  platform: '',
  context: '',
  action: '',
  preventive: true,
  parameters: '',
});

/** Reads `name: type — description` lines; blank lines are skipped. Throws with the line for a line without a type. */
export function parseParameterLines(text: string, withMandatory: boolean): InterfaceParameter[] {
  const parameters: InterfaceParameter[] = [];
  text.split('\n').forEach((raw, index) => {
    const line = raw.trim();
    if (line === '') return;
    const match = /^([^:!\s]+)(!?)\s*:\s*([^\s—-][^—]*?)\s*(?:—\s*(.*))?$/.exec(line);
    if (!match?.[1] || !match[3]) throw new Error(`parameter line ${index + 1}: expected \`name: type — description\`, got \`${line}\``);
    const parameter: InterfaceParameter = { name: match[1], type: match[3], description: match[4]?.trim() ?? '' };
    if (withMandatory) parameter.mandatory = match[2] === '!';
    parameters.push(parameter);
  });
  return parameters;
}

/** The Component the form describes (pap checks it completely; this only shapes it). */
export function componentOf(form: ComponentForm): Component {
  const identifier = `urn:component:${form.solution.trim()}:${form.type.toLowerCase()}:${form.name.trim()}`;
  const urls = form.urls.split('\n').map((u) => u.trim()).filter((u) => u !== '');
  const componentInterfaces = form.interfaces.map((i): PepInterfaceDescription | InterfaceDescription => {
    const common = { methodName: i.methodName.trim(), returnType: i.returnType.trim(), description: i.description.trim() };
    if (form.type === 'PEP') {
      return {
        type: 'PepInterfaceDescription',
        event: { platform: i.platform.trim(), context: i.context.trim(), action: i.action.trim() },
        preventive: i.preventive,
        ...common,
        parameters: parseParameterLines(i.parameters, false),
      };
    }
    return { type: 'InterfaceDescription', ...common, parameters: parseParameterLines(i.parameters, true) };
  });
  return { id: { componentType: form.type, identifier }, urls, componentInterfaces };
}
