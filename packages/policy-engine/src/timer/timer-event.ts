import type { Diagnostic, NamedValue } from '../api';
import type { ElementNode } from '../ast/nodes';
import { diagnostic, excerpt } from '../diagnostics';
import { readLiteral } from '../parse/literals';
import { namespaceRole } from '../parse/namespaces';
import { toNode } from '../parse/parse-policy';
import { readUrn } from '../parse/urns';
import { attributesPass } from '../validate/attributes';
import { reportDuplicateParameters } from '../validate/duplicate-parameters';
import type { Report, ValidationPass } from '../validate/pass';
import { structurePass } from '../validate/structure';
import { typesPass } from '../validate/types';
import type { XmlElement } from '../xml/xml-tree';
import { describeTimerElement, reportText, TIMER_ATTRIBUTES, timerAttributes } from './timer-xml';

/** One event a timer fires: an action and constant parameters. */
export interface TimerEvent {
  readonly action: string;
  readonly parameters: readonly NamedValue[];
}

/** The passes of the policy pipeline that judge a `parameter:T` on its own: children, attributes, types. */
const PARAMETER_PASSES: readonly ValidationPass[] = [structurePass, attributesPass, typesPass];

/**
 * `<event action="urn:action:<solution>:<name>"> parameter:T* </event>`. Its parameters are read and checked by the
 * policy pipeline (parse, structure, attributes, types, duplicate names); on top of that a timer has no event to
 * read values from, so a parameter's value is its `value`, one `constant:*` child, or neither (null). Problems go to
 * `problems`; the event comes back only when it has none.
 */
export function readTimerEvent(element: XmlElement, solution: string | null, problems: Diagnostic[]): TimerEvent | null {
  const before = problems.length;
  const report: Report = (code, message, location) => problems.push(diagnostic(code, message, location));
  const action = timerAttributes(element, Object.keys(TIMER_ATTRIBUTES.event), problems).get('action');
  if (action === undefined) {
    report('missing_attribute', '`event` needs the attribute `action`', element.location);
  } else {
    const urn = readUrn('action', action.value);
    if (urn === null) {
      report('invalid_urn', `\`${excerpt(action.value)}\` is not an action; expected \`urn:action:<solution>:<name>\``, action.location);
    } else if (solution !== null && urn.solution !== solution) {
      report(
        'solution_mismatch',
        `action \`${action.value}\` belongs to solution \`${urn.solution}\`, not to the timer's solution \`${solution}\``,
        action.location,
      );
    }
  }
  const parameters: ElementNode[] = [];
  for (const child of element.children) {
    if (child.kind === 'text') {
      reportText(child, 'event', problems);
    } else if (namespaceRole(child.namespaceUri) !== 'parameter') {
      report('unknown_element', `unexpected element ${describeTimerElement(child)} in \`event\`; only \`parameter:*\` is allowed`, child.location);
    } else {
      const node = toNode(child, problems);
      if (node === null) continue;
      for (const pass of PARAMETER_PASSES) pass.run(node, report, problems);
      reportTimerRules(node, report);
      parameters.push(node);
    }
  }
  reportDuplicateParameters('event', parameters, report);
  if (problems.length > before || action === undefined) return null;
  const values = parameters.map((parameter) => parameterValue(parameter, report));
  if (problems.length > before) return null;
  return Object.freeze({ action: action.value, parameters: Object.freeze(values) });
}

/** What a timer adds to the parameter rules of policies. */
function reportTimerRules(parameter: ElementNode, report: Report): void {
  const path = parameter.attributes.get('jsonPathQuery');
  if (path !== undefined) report('unknown_attribute', `unknown attribute \`jsonPathQuery\` on \`${parameter.name}\``, path.location);
  const first = parameter.children[0];
  if (first !== undefined && parameter.attributes.has('value')) {
    report('too_many_children', `\`${parameter.name}\` has a \`value\`; it cannot also have a child`, first.location);
  }
  for (const child of parameter.children) {
    if (child.info.role === 'expression' && child.info.family !== 'constant') {
      report(
        'unsupported_element',
        `\`${child.name}\` cannot give a timer parameter its value: a timer has no event, so only \`constant:*\` is allowed`,
        child.location,
      );
    }
  }
}

/**
 * The value of a parameter that passed every check. Its literal is read here, where it is used, by the reader the
 * attributes pass checked it with; were the two ever to disagree, the timer is refused with the reader's problem.
 */
function parameterValue(parameter: ElementNode, report: Report): NamedValue {
  const name = parameter.attributes.get('name')?.value ?? '';
  const constant = parameter.children[0];
  if (constant?.name === 'constant:true' || constant?.name === 'constant:false') return { name, value: constant.name === 'constant:true' };
  const literal = parameter.attributes.get('value') ?? constant?.attributes.get('value');
  const type = parameter.info.declaredType;
  if (literal === undefined || type === null) return { name, value: null };
  const read = readLiteral(type, literal.value);
  if (read.ok) return { name, value: read.value };
  report('invalid_attribute', `attribute \`value\` of \`${parameter.name}\`: ${read.problem}`, literal.location);
  return { name, value: null };
}
