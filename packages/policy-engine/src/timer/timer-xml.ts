import type { Diagnostic } from '../api';
import { diagnostic, excerpt, type SourceLocation } from '../diagnostics';
import { IGNORED_ATTRIBUTE_NAMESPACES, isTimerNamespace, namespaceRole } from '../parse/namespaces';
import type { XmlElement, XmlNode } from '../xml/xml-tree';

/**
 * The attributes of the two timer elements, each with whether the reader requires it (read-timer.ts and
 * timer-event.ts report those missing); the XSD of timers is written from this.
 */
export const TIMER_ATTRIBUTES = {
  timer: { id: true, cron: true, description: false },
  event: { action: true },
} as const satisfies Record<'timer' | 'event', Record<string, boolean>>;

/** The two elements of the timer namespace, `timer` and `event`, have no place in the policy catalogue. */
export function isTimerElement(element: XmlElement, localName: 'timer' | 'event'): boolean {
  return isTimerNamespace(element.namespaceUri) && element.localName === localName;
}

export interface TimerAttribute {
  readonly value: string;
  readonly location: SourceLocation;
}

/** The attributes of `timer` or `event` without a namespace, by name; unknown ones are reported. */
export function timerAttributes(element: XmlElement, allowed: readonly string[], problems: Diagnostic[]): Map<string, TimerAttribute> {
  const found = new Map<string, TimerAttribute>();
  for (const attribute of element.attributes) {
    if (attribute.namespaceUri !== null && IGNORED_ATTRIBUTE_NAMESPACES.has(attribute.namespaceUri)) continue;
    if (attribute.namespaceUri !== null || !allowed.includes(attribute.localName)) {
      problems.push(diagnostic('unknown_attribute', `unknown attribute \`${attribute.qualifiedName}\` on \`${element.localName}\``, attribute.location));
      continue;
    }
    found.set(attribute.localName, { value: attribute.value, location: attribute.location });
  }
  return found;
}

/** Text between elements is a mistake of the author, as in policies. */
export function reportText(node: XmlNode, parent: string, problems: Diagnostic[]): void {
  if (node.kind === 'text' && node.text.trim() !== '') {
    problems.push(diagnostic('unexpected_text', `unexpected text \`${excerpt(node.text.trim(), 20)}\` in \`${parent}\``, node.location));
  }
}

export function describeTimerElement(element: XmlElement): string {
  if (element.namespaceUri === null) return `\`${element.localName}\` (no namespace)`;
  if (isTimerNamespace(element.namespaceUri)) return `\`${element.localName}\``;
  const role = namespaceRole(element.namespaceUri);
  if (role !== null && role !== 'language') return `\`${role}:${element.localName}\``;
  return `\`${element.localName}\` in namespace \`${element.namespaceUri}\``;
}
