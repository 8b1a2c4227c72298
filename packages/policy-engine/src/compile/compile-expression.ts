import type { ElementNode } from '../ast/nodes';
import type { JsonValue, ValueType } from '../ast/value-types';
import { constant } from '../functions/constant';
import { equals } from '../functions/equals';
import type { CompiledExpression, Evaluate } from '../functions/evaluation';
import { eventValue } from '../functions/event-value';
import { and, not, or } from '../functions/logic';
import { readJsonPath } from '../parse/json-path';
import { readLiteral } from '../parse/literals';
import { optionalAttribute, requiredAttribute, validated } from './attributes';

type ExpressionCompiler = (node: ElementNode) => Evaluate<JsonValue>;

/** One compiler per supported expression element; the functions themselves live in functions/, one file per family. */
const CORE_COMPILERS: ReadonlyMap<string, ExpressionCompiler> = new Map<string, ExpressionCompiler>([
  ['and', (node) => and(booleanOperands(node), optionalAttribute(node, 'mode') === 'EAGER')],
  ['or', (node) => or(booleanOperands(node), optionalAttribute(node, 'mode') === 'EAGER')],
  ['not', (node) => not(booleanOperands(node)[0]!)],
  ['equals', (node) => equals(node.children.map((child) => compileExpression(child).evaluate))],
  ['constant:true', () => constant(true)],
  ['constant:false', () => constant(false)],
]);

export function compileExpression(node: ElementNode): CompiledExpression {
  const type = node.info.resultType;
  if (type === null) throw new Error(`bug: \`${node.name}\` is not an expression`);
  return { mode: 'sync', type, evaluate: compilerFor(node)(node) };
}

/** A child validated as boolean; the cast is what the types pass proved. */
export function compileCondition(node: ElementNode): Evaluate<boolean> {
  const compiled = compileExpression(node);
  if (compiled.type !== 'boolean') throw new Error(`bug: condition \`${node.name}\` is of type ${compiled.type}`);
  return compiled.evaluate as Evaluate<boolean>;
}

function compilerFor(node: ElementNode): ExpressionCompiler {
  const core = CORE_COMPILERS.get(node.name);
  if (core !== undefined) return core;
  const type = node.info.declaredType;
  if (node.info.family === 'constant' && type !== null) return (element) => compileConstant(element, type);
  if (node.info.family === 'event' && type !== null) return (element) => compileEventValue(element, type);
  throw new Error(`bug: no compiler for validated element \`${node.name}\``);
}

function booleanOperands(node: ElementNode): Array<Evaluate<boolean>> {
  return node.children.map(compileCondition);
}

function compileConstant(node: ElementNode, type: ValueType): Evaluate<JsonValue> {
  return constant(validated(readLiteral(type, requiredAttribute(node, 'value')), node));
}

function compileEventValue(node: ElementNode, type: ValueType): Evaluate<JsonValue> {
  const pathText = optionalAttribute(node, 'jsonPathQuery');
  return eventValue({
    type,
    parameter: requiredAttribute(node, 'eventParameter'),
    defaultValue: validated(readLiteral(type, requiredAttribute(node, 'default')), node),
    path: pathText === null ? null : { text: pathText, query: validated(readJsonPath(pathText), node) },
  });
}
