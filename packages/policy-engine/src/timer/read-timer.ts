import type { Diagnostic, NamedValue } from '../api';
import { VALUE_TYPES, type JsonValue, type ValueType } from '../ast/value-types';
import { diagnostic, excerpt, sortDiagnostics, type SourceLocation } from '../diagnostics';
import { readLiteral } from '../parse/literals';
import { IGNORED_ATTRIBUTE_NAMESPACES, TIMER_NAMESPACE, isTimerNamespace, namespaceRole } from '../parse/namespaces';
import { readUrn } from '../parse/urns';
import { readXml } from '../xml/read-xml';
import type { XmlElement } from '../xml/xml-tree';
import { readQuartzCron, type QuartzSchedule } from './quartz';

export { TIMER_NAMESPACE } from '../parse/namespaces';

/** One event a timer fires: an action and constant parameters. */
export interface TimerEvent {
  readonly action: string;
  readonly parameters: readonly NamedValue[];
}

/** A timer document that passed every check. */
export interface TimerDocument {
  /** `urn:timer:<solution>:<name>`. */
  readonly id: string;
  readonly solution: string;
  readonly name: string;
  readonly description: string | null;
  /** The quartz expression as written (fields joined by one space). */
  readonly cron: string;
  /** The same schedule in cron-parser's six-field syntax, without the year (see readQuartzCron). */
  readonly schedule: string;
  /** The years the cron's year field allows, ascending; absent when it allows every year. */
  readonly years?: readonly number[];
  /** Where the `cron` attribute is, for diagnostics of a full cron check done by the caller. */
  readonly cronLocation: { readonly line: number; readonly column?: number };
  readonly events: readonly TimerEvent[];
}

export type TimerLoadOutcome = { ok: true; timer: TimerDocument } | { ok: false; diagnostics: Diagnostic[] };

const TIMER_ATTRIBUTES = new Set(['id', 'cron', 'description']);

/**
 * Reads a timer document with the same hardened reader as policies (no DOCTYPE, limits, located diagnostics):
 *
 * ```
 * <timer xmlns="http://www.mydata-control.de/4.0/mydataLanguageTimer" id="urn:timer:<solution>:<name>" cron="..." description?>
 *   <event action="urn:action:<solution>:<name>"> parameter:T* </event>   (one or more)
 * </timer>
 * ```
 *
 * A `parameter:T` has a `name` (unique in its event) and either a `value`, one `constant:*` child of its type, or
 * neither (null): a timer has no event to read values from, so only constants are allowed. Every action must be in
 * the timer's solution (the solution rule of policy-language.md §2). Never throws for bad input.
 */
export function loadTimer(xml: string): TimerLoadOutcome {
  if (typeof xml !== 'string') {
    return { ok: false, diagnostics: [diagnostic('invalid_input', `the timer must be a string, found ${typeof xml}`)] };
  }
  const read = readXml(xml);
  if (!read.ok) return { ok: false, diagnostics: read.diagnostics };
  const root = read.root;
  if (!isTimerNamespace(root.namespaceUri) || root.localName !== 'timer') {
    return {
      ok: false,
      diagnostics: [
        diagnostic('wrong_root', `the root element must be \`timer\` in namespace \`${TIMER_NAMESPACE}\`, found ${describe(root)}`, root.location),
      ],
    };
  }
  const problems: Diagnostic[] = [];
  const report = (code: string, message: string, location: SourceLocation) => problems.push(diagnostic(code, message, location));

  const attributes = languageAttributes(root, TIMER_ATTRIBUTES, report);
  const idAttribute = attributes.get('id');
  const cronAttribute = attributes.get('cron');
  let id: { solution: string; name: string } | null = null;
  if (idAttribute === undefined) {
    report('missing_attribute', '`timer` needs the attribute `id`', root.location);
  } else {
    id = readUrn('timer', idAttribute.value);
    if (id === null) {
      report('invalid_urn', `\`${excerpt(idAttribute.value)}\` is not a timer id; expected \`urn:timer:<solution>:<name>\``, idAttribute.location);
    }
  }
  let schedule: QuartzSchedule | null = null;
  if (cronAttribute === undefined) {
    report('missing_attribute', '`timer` needs the attribute `cron`', root.location);
  } else {
    const cron = readQuartzCron(cronAttribute.value);
    if (cron.ok) schedule = cron.value;
    else report('invalid_attribute', `attribute \`cron\`: ${cron.problem}`, cronAttribute.location);
  }

  const events: TimerEvent[] = [];
  for (const child of root.children) {
    if (child.kind === 'text') {
      if (child.text.trim() !== '') report('unexpected_text', `unexpected text \`${excerpt(child.text.trim(), 20)}\` in \`timer\``, child.location);
      continue;
    }
    if (!isTimerNamespace(child.namespaceUri) || child.localName !== 'event') {
      report('unknown_element', `unexpected element ${describe(child)} in \`timer\`; only \`event\` is allowed`, child.location);
      continue;
    }
    const event = readEvent(child, id?.solution ?? null, report);
    if (event !== null) events.push(event);
  }
  if (events.length === 0 && !root.children.some((child) => child.kind === 'element')) {
    report('missing_element', '`timer` needs at least one `event`', root.location);
  }

  if (problems.length > 0 || id === null || schedule === null || idAttribute === undefined || cronAttribute === undefined) {
    return { ok: false, diagnostics: sortDiagnostics(problems) };
  }
  const location = cronAttribute.location;
  return {
    ok: true,
    timer: Object.freeze({
      id: idAttribute.value,
      solution: id.solution,
      name: id.name,
      description: attributes.get('description')?.value ?? null,
      cron: schedule.quartz,
      schedule: schedule.cronParser,
      ...(schedule.years === undefined ? {} : { years: Object.freeze([...schedule.years]) }),
      cronLocation: location.column === undefined ? { line: location.line } : { line: location.line, column: location.column },
      events: Object.freeze(events),
    }),
  };
}

type Report = (code: string, message: string, location: SourceLocation) => void;

interface Attribute {
  readonly value: string;
  readonly location: SourceLocation;
}

/** Attributes without a namespace, by name; unknown ones are reported. */
function languageAttributes(element: XmlElement, allowed: ReadonlySet<string>, report: Report): Map<string, Attribute> {
  const found = new Map<string, Attribute>();
  for (const attribute of element.attributes) {
    if (attribute.namespaceUri !== null) {
      if (IGNORED_ATTRIBUTE_NAMESPACES.has(attribute.namespaceUri)) continue;
      report('unknown_attribute', `unknown attribute \`${attribute.qualifiedName}\` on \`${element.localName}\``, attribute.location);
      continue;
    }
    if (!allowed.has(attribute.localName)) {
      report('unknown_attribute', `unknown attribute \`${attribute.localName}\` on \`${element.localName}\``, attribute.location);
      continue;
    }
    found.set(attribute.localName, { value: attribute.value, location: attribute.location });
  }
  return found;
}

function readEvent(element: XmlElement, solution: string | null, report: Report): TimerEvent | null {
  const attributes = languageAttributes(element, new Set(['action']), report);
  const actionAttribute = attributes.get('action');
  let ok = true;
  if (actionAttribute === undefined) {
    report('missing_attribute', '`event` needs the attribute `action`', element.location);
    ok = false;
  } else {
    const action = readUrn('action', actionAttribute.value);
    if (action === null) {
      report('invalid_urn', `\`${excerpt(actionAttribute.value)}\` is not an action; expected \`urn:action:<solution>:<name>\``, actionAttribute.location);
      ok = false;
    } else if (solution !== null && action.solution !== solution) {
      report(
        'solution_mismatch',
        `action \`${actionAttribute.value}\` belongs to solution \`${action.solution}\`, not to the timer's solution \`${solution}\``,
        actionAttribute.location,
      );
      ok = false;
    }
  }
  const parameters: NamedValue[] = [];
  const names = new Set<string>();
  for (const child of element.children) {
    if (child.kind === 'text') {
      if (child.text.trim() !== '') report('unexpected_text', `unexpected text \`${excerpt(child.text.trim(), 20)}\` in \`event\``, child.location);
      continue;
    }
    const type = typedElement(child, 'parameter');
    if (type === null) {
      report('unknown_element', `unexpected element ${describe(child)} in \`event\`; only \`parameter:*\` is allowed`, child.location);
      ok = false;
      continue;
    }
    const parameter = readParameter(child, type, report);
    if (parameter === null) {
      ok = false;
      continue;
    }
    if (names.has(parameter.name)) {
      report('invalid_attribute', `parameter \`${excerpt(parameter.name)}\` is given twice in one \`event\``, child.location);
      ok = false;
      continue;
    }
    names.add(parameter.name);
    parameters.push(parameter);
  }
  return ok && actionAttribute !== undefined ? Object.freeze({ action: actionAttribute.value, parameters: Object.freeze(parameters) }) : null;
}

function readParameter(element: XmlElement, type: ValueType, report: Report): NamedValue | null {
  const qualified = `parameter:${type}`;
  const attributes = languageAttributes(element, new Set(['name', 'value']), report);
  const name = attributes.get('name');
  if (name === undefined) {
    report('missing_attribute', `\`${qualified}\` needs the attribute \`name\``, element.location);
    return null;
  }
  if (name.value === '') {
    report('invalid_attribute', `\`${qualified}\` needs a non-empty \`name\``, name.location);
    return null;
  }
  const children = element.children.filter((child): child is XmlElement => child.kind === 'element');
  for (const child of element.children) {
    if (child.kind === 'text' && child.text.trim() !== '') {
      report('unexpected_text', `unexpected text \`${excerpt(child.text.trim(), 20)}\` in \`${qualified}\``, child.location);
      return null;
    }
  }
  const literal = attributes.get('value');
  if (literal !== undefined) {
    if (children.length > 0) {
      report('too_many_children', `\`${qualified}\` has a \`value\`; it cannot also have a child`, children[0]!.location);
      return null;
    }
    return literalValue(name.value, type, literal.value, literal.location, report);
  }
  if (children.length === 0) return { name: name.value, value: null };
  if (children.length > 1) {
    report('too_many_children', `\`${qualified}\` takes at most one child`, children[1]!.location);
    return null;
  }
  const child = children[0]!;
  const role = namespaceRole(child.namespaceUri);
  if (role !== 'constant') {
    report(
      'unsupported_element',
      `${describe(child)} cannot give a timer parameter its value: a timer has no event, so only \`constant:*\` is allowed`,
      child.location,
    );
    return null;
  }
  if (child.localName === 'true' || child.localName === 'false') {
    if (type !== 'boolean') {
      report('type_mismatch', `\`constant:${child.localName}\` is a boolean, but \`${qualified}\` needs a ${type}`, child.location);
      return null;
    }
    return { name: name.value, value: child.localName === 'true' };
  }
  const constantType = typedElement(child, 'constant');
  if (constantType === null) {
    report('unknown_element', `unknown element ${describe(child)}`, child.location);
    return null;
  }
  if (constantType !== type) {
    report('type_mismatch', `\`constant:${constantType}\` is a ${constantType}, but \`${qualified}\` needs a ${type}`, child.location);
    return null;
  }
  const constantAttributes = languageAttributes(child, new Set(['value']), report);
  const value = constantAttributes.get('value');
  if (value === undefined) {
    report('missing_attribute', `\`constant:${constantType}\` needs the attribute \`value\``, child.location);
    return null;
  }
  return literalValue(name.value, type, value.value, value.location, report);
}

function literalValue(name: string, type: ValueType, text: string, location: SourceLocation, report: Report): NamedValue | null {
  const read = readLiteral(type, text);
  if (!read.ok) {
    report('invalid_attribute', `parameter \`${excerpt(name)}\`: ${read.problem}`, location);
    return null;
  }
  return { name, value: read.value as JsonValue };
}

/** The T of `<family>:T` (parameter:string → string), or null when the element is something else. */
function typedElement(element: XmlElement, family: 'parameter' | 'constant'): ValueType | null {
  if (namespaceRole(element.namespaceUri) !== family) return null;
  return (VALUE_TYPES as readonly string[]).includes(element.localName) ? (element.localName as ValueType) : null;
}

function describe(element: XmlElement): string {
  if (element.namespaceUri === null) return `\`${element.localName}\` (no namespace)`;
  if (isTimerNamespace(element.namespaceUri)) return `\`${element.localName}\``;
  const role = namespaceRole(element.namespaceUri);
  if (role !== null && role !== 'language') return `\`${role}:${element.localName}\``;
  return `\`${element.localName}\` in namespace \`${element.namespaceUri}\``;
}
