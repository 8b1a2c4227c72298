import type { ElementNode } from '../ast/nodes';
import type { ValueType } from '../ast/value-types';
import { constant } from '../functions/constant';
import type { ParameterProgram } from '../functions/parameters';
import { readLiteral } from '../parse/literals';
import { validated } from './attributes';
import { compileExpression } from './compile-expression';
import type { CompileScope } from './scope';

/** `parameter:T` children of modify/execute/pip/eventOccurrence (policy-language.md §4). */
export function compileParameters(owner: ElementNode, scope: CompileScope): ParameterProgram[] {
  return owner.children.filter((child) => child.info.family === 'parameter').map((child) => compileParameter(child, scope));
}

/** `value` wins over a child; neither is null. */
export function compileParameter(node: ElementNode, scope: CompileScope): ParameterProgram {
  const name = node.attributes.get('name')?.value;
  const type = node.info.declaredType;
  if (name === undefined || type === null) throw new Error(`bug: validated \`${node.name}\` lacks a name or type`);
  const literal = node.attributes.get('value');
  if (literal !== undefined) return { name, mode: 'sync', value: constant(validated(readLiteral(type as ValueType, literal.value), node)) };
  const child = node.children[0];
  if (child === undefined) return { name, mode: 'sync', value: constant(null) };
  const compiled = compileExpression(child, scope);
  return { name, mode: compiled.mode, value: compiled.evaluate };
}
