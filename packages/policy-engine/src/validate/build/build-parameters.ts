import type { ElementNode } from '../../ast/nodes';
import type { ParameterSource, ValidExecute, ValidParameter } from '../../ast/valid/policy';
import { readLiteral } from '../../parse/literals';
import { buildTyped } from './build-expression';
import type { BuildScope } from './build-scope';
import { gap, read, text } from './read-node';

/** The `parameter:T` children of modify, execute, pip and eventOccurrence (policy-language.md §4). */
export function parameterNodes(owner: ElementNode): ElementNode[] {
  return owner.children.filter((child) => child.info.family === 'parameter');
}

export function buildParameters(owner: ElementNode, scope: BuildScope): ValidParameter[] {
  return parameterNodes(owner).map((node) => buildParameter(node, scope));
}

export function buildParameter(node: ElementNode, scope: BuildScope): ValidParameter {
  const type = node.info.declaredType ?? gap(node, 'has no type');
  return { name: text(node, 'name'), type, location: node.location, source: sourceOf(node, scope) };
}

/** `value` wins over a child. */
function sourceOf(node: ElementNode, scope: BuildScope): ParameterSource {
  const type = node.info.declaredType ?? gap(node, 'has no type');
  if (node.attributes.has('value')) return { kind: 'literal', value: read(node, 'value', (value) => readLiteral(type, value)) };
  const [child] = node.children;
  return child === undefined ? { kind: 'none' } : { kind: 'expression', expression: buildTyped(child, scope, [type]) };
}

/** An `execute`: in a decision, directly under a mechanism, or as a condition. */
export function buildExecute(node: ElementNode, scope: BuildScope): ValidExecute {
  return { action: text(node, 'action'), location: node.location, parameters: buildParameters(node, scope) };
}
