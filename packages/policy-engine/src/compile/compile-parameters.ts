import type { ElementNode } from '../ast/nodes';
import type { JsonValue } from '../ast/value-types';
import { constant } from '../functions/constant';
import type { Evaluate } from '../functions/evaluation';
import { readLiteral } from '../parse/literals';
import { validated } from './attributes';
import { compileExpression } from './compile-expression';
import type { ParameterProgram } from './program';

/** `parameter:T` children of modify/execute (policy-language.md §4): `value` wins over a child; neither is null. */
export function compileParameters(owner: ElementNode): ParameterProgram[] {
  return owner.children.filter((child) => child.info.family === 'parameter').map(compileParameter);
}

function compileParameter(node: ElementNode): ParameterProgram {
  const name = node.attributes.get('name')?.value;
  const type = node.info.declaredType;
  if (name === undefined || type === null) throw new Error(`bug: validated \`${node.name}\` lacks a name or type`);
  return { name, value: parameterValue(node, type) };
}

function parameterValue(node: ElementNode, type: NonNullable<ElementNode['info']['declaredType']>): Evaluate<JsonValue> {
  const literal = node.attributes.get('value');
  if (literal !== undefined) return constant(validated(readLiteral(type, literal.value), node));
  const child = node.children[0];
  return child === undefined ? constant(null) : compileExpression(child).evaluate;
}
