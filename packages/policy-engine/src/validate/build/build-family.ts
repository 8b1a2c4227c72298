import type { ElementNode } from '../../ast/nodes';
import type { ValidExpression } from '../../ast/valid/expressions';
import type { ValidJsonPath } from '../../ast/valid/located';
import type { ValidDeclaration } from '../../ast/valid/policy';
import type { ValueType } from '../../ast/value-types';
import { readDuration } from '../../parse/duration';
import { readJsonPath } from '../../parse/json-path';
import { readLiteral } from '../../parse/literals';
import { buildTyped } from './build-expression';
import { buildParameters } from './build-parameters';
import type { BuildScope } from './build-scope';
import { gap, read, readOptional, text } from './read-node';

/** `constant:T`, `event:T`, `pip:T`, `variable:T`, `valueChanged:T`; null for any other element. */
export function buildFamilyExpression(node: ElementNode, scope: BuildScope): ValidExpression | null {
  const type = node.info.declaredType;
  if (type === null) return null;
  const literal = (value: string) => readLiteral(type, value);
  const location = node.location;
  switch (node.info.family) {
    case 'constant':
      return { kind: 'constant', type, location, value: read(node, 'value', literal) };
    case 'event':
      return {
        kind: 'event',
        type,
        location,
        parameter: text(node, 'eventParameter'),
        defaultValue: read(node, 'default', literal),
        path: pathOf(node),
      };
    case 'pip':
      return {
        kind: 'pip',
        type,
        location,
        method: text(node, 'method'),
        defaultValue: read(node, 'default', literal),
        ttlMs: readOptional(node, 'ttl', readDuration),
        parameters: buildParameters(node, scope),
      };
    case 'variable':
      return { kind: 'variable', type, location, declaration: declarationOf(node, scope, type) };
    case 'valueChanged':
      return valueChanged(node, scope, type);
    default:
      return null;
  }
}

/** The element's `jsonPathQuery`, read, or null. */
export function pathOf(node: ElementNode): ValidJsonPath | null {
  const query = readOptional(node, 'jsonPathQuery', readJsonPath);
  return query === null ? null : { text: text(node, 'jsonPathQuery'), query };
}

function declarationOf(node: ElementNode, scope: BuildScope, type: ValueType): ValidDeclaration {
  const declaration = scope.declaration(text(node, 'reference'), node);
  return declaration.type === type ? declaration : gap(node, `refers to a declaration of type ${declaration.type}`);
}

function valueChanged(node: ElementNode, scope: BuildScope, type: ValueType): ValidExpression {
  const [watched] = node.children;
  if (watched === undefined || node.children.length !== 1) gap(node, 'needs exactly one operand');
  const to = readOptional(node, 'to', (value) => readLiteral(type, value));
  return {
    kind: 'valueChanged',
    type: 'boolean',
    valueType: type,
    location: node.location,
    id: text(node, 'id'),
    to,
    operand: buildTyped(watched, scope, [type]),
  };
}
