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
  /** One parameter per line: `name: type - description`, `!` after the name for a mandatory PIP/PXP parameter. */
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

/**
 * Where the description starts: the first dash that stands as a word of its own (`-`, `--`, `–` or `—` with a space
 * on each side, or at the start or the end), or an en or em dash anywhere (no type has one). A hyphen inside a word
 * (`com.acme.user-record`) stays in the type.
 */
const DESCRIPTION_SEPARATOR = /(?:^|\s+)(?:--?|[–—])(?:\s+|$)|\s*[–—]\s*/;

/** The form's hint for the parameter lines, in the words `parseParameterLines` reads. */
export const PARAMETER_SYNTAX = 'name: type - description';

/**
 * Reads `name: type - description` lines (any dash with spaces around it; an en or em dash needs none); blank lines
 * are skipped. Throws with the line for a line without a name or a type.
 */
export function parseParameterLines(text: string, withMandatory: boolean): InterfaceParameter[] {
  const parameters: InterfaceParameter[] = [];
  text.split('\n').forEach((raw, index) => {
    const line = raw.trim();
    if (line === '') return;
    const head = /^([^:!\s]+)(!?)\s*:\s*(.*)$/.exec(line);
    const rest = head?.[3] ?? '';
    const separator = DESCRIPTION_SEPARATOR.exec(rest);
    const type = (separator === null ? rest : rest.slice(0, separator.index)).trim();
    if (!head?.[1] || type === '') throw new Error(`parameter line ${index + 1}: expected \`${PARAMETER_SYNTAX}\`, got \`${line}\``);
    const description = separator === null ? '' : rest.slice(separator.index + separator[0].length).trim();
    const parameter: InterfaceParameter = { name: head[1], type, description };
    if (withMandatory) parameter.mandatory = head[2] === '!';
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
