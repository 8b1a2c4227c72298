import type { ElementNode } from '../ast/nodes';
import type { ReadResult } from '../parse/read-result';

/**
 * Attribute access for compiling a validated tree. A missing required attribute or an unreadable value here means
 * validation let something through, which is a bug, hence the exceptions.
 */
export function requiredAttribute(node: ElementNode, name: string): string {
  const attribute = node.attributes.get(name);
  if (attribute === undefined) throw new Error(`bug: validated \`${node.name}\` lacks attribute \`${name}\``);
  return attribute.value;
}

export function optionalAttribute(node: ElementNode, name: string): string | null {
  return node.attributes.get(name)?.value ?? null;
}

export function validated<T>(result: ReadResult<T>, node: ElementNode): T {
  if (!result.ok) throw new Error(`bug: validated \`${node.name}\` has an unreadable value: ${result.problem}`);
  return result.value;
}
