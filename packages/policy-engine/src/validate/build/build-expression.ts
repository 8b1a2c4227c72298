import type { ElementNode } from '../../ast/nodes';
import { ARITHMETIC_OPERATORS, COMPARISON_OPERATORS, type ExpressionOf, type ValidExpression } from '../../ast/valid/expressions';
import type { ValueType } from '../../ast/value-types';
import { MATCH_MODES, type MatchMode } from '../../functions/matching';
import { readComparison, readDayOfYear, readMinuteOfDay, readWeekdays } from '../../parse/calendar';
import { readRegex } from '../../parse/regex';
import { buildFamilyExpression } from './build-family';
import { buildContinuousOccurrence, buildCount } from './build-history';
import { buildExecute } from './build-parameters';
import type { BuildScope } from './build-scope';
import { gap, oneOf, read } from './read-node';

type ExpressionBuilder = (node: ElementNode, scope: BuildScope) => ValidExpression;

const matchMode = (node: ElementNode): MatchMode => oneOf(node, 'mode', MATCH_MODES, 'ALL');

const BUILDERS: ReadonlyMap<string, ExpressionBuilder> = new Map<string, ExpressionBuilder>([
  ['and', (node, scope) => logical(node, scope, 'and')],
  ['or', (node, scope) => logical(node, scope, 'or')],
  ['xor', (node, scope) => ({ kind: 'xor', type: 'boolean', location: node.location, operands: operandsOf(node, scope, ['boolean']) })],
  ['not', (node, scope) => ({ kind: 'not', type: 'boolean', location: node.location, operand: single(node, scope, ['boolean']) })],
  ['implies', implies],
  ['equals', equals],
  ...COMPARISON_OPERATORS.map((operator): [string, ExpressionBuilder] => [
    operator,
    (node, scope) => ({ kind: 'comparison', type: 'boolean', location: node.location, operator, operands: operandsOf(node, scope, ['number']) }),
  ]),
  ...ARITHMETIC_OPERATORS.map((operator): [string, ExpressionBuilder] => [
    operator,
    (node, scope) => ({ kind: 'arithmetic', type: 'number', location: node.location, operator, operands: operandsOf(node, scope, ['number']) }),
  ]),
  ['size', (node, scope) => ({ kind: 'size', type: 'number', location: node.location, operand: single(node, scope, ['list', 'string']) })],
  ['concat', (node, scope) => ({ kind: 'concat', type: 'string', location: node.location, operands: operandsOf(node, scope, null) })],
  [
    'regex',
    (node, scope) => ({
      kind: 'regex',
      type: 'boolean',
      location: node.location,
      regex: read(node, 'regex', readRegex),
      mode: matchMode(node),
      operands: operandsOf(node, scope, ['string']),
    }),
  ],
  ['contains', contains],
  [
    'eventHasParameter',
    (node, scope) => ({
      kind: 'eventHasParameter',
      type: 'boolean',
      location: node.location,
      mode: matchMode(node),
      operands: operandsOf(node, scope, ['string']),
    }),
  ],
  [
    'date',
    (node) => ({
      kind: 'date',
      type: 'boolean',
      location: node.location,
      comparison: read(node, 'is', readComparison),
      dayOfYear: read(node, 'value', readDayOfYear),
    }),
  ],
  [
    'time',
    (node) => ({
      kind: 'time',
      type: 'boolean',
      location: node.location,
      comparison: read(node, 'is', readComparison),
      minuteOfDay: read(node, 'value', readMinuteOfDay),
    }),
  ],
  ['day', (node) => ({ kind: 'day', type: 'boolean', location: node.location, weekdays: read(node, 'value', readWeekdays) })],
  ['count', (node, scope) => buildCount(node, scope)],
  ['continuousOccurrence', (node, scope) => buildContinuousOccurrence(node, scope)],
  ['execute', (node, scope) => ({ kind: 'execute', type: 'boolean', location: node.location, execute: buildExecute(node, scope) })],
  ['constant:true', (node) => ({ kind: 'constant', type: 'boolean', location: node.location, value: true })],
  ['constant:false', (node) => ({ kind: 'constant', type: 'boolean', location: node.location, value: false })],
]);

export function buildExpression(node: ElementNode, scope: BuildScope): ValidExpression {
  const builder = BUILDERS.get(node.name);
  if (builder !== undefined) return builder(node, scope);
  return buildFamilyExpression(node, scope) ?? gap(node, 'is not an expression');
}

/** An expression whose type is one of `types`. */
export function buildTyped<T extends ValueType>(node: ElementNode, scope: BuildScope, types: readonly T[]): ExpressionOf<T> {
  const expression = buildExpression(node, scope);
  return hasType(expression, types) ? expression : gap(node, `is not of type ${types.join(' or ')}`);
}

function hasType<T extends ValueType>(expression: ValidExpression, types: readonly T[]): expression is ExpressionOf<T> {
  return (types as readonly ValueType[]).includes(expression.type);
}

function operandsOf(node: ElementNode, scope: BuildScope, types: null): ValidExpression[];
function operandsOf<T extends ValueType>(node: ElementNode, scope: BuildScope, types: readonly T[]): Array<ExpressionOf<T>>;
function operandsOf<T extends ValueType>(node: ElementNode, scope: BuildScope, types: readonly T[] | null): ValidExpression[] {
  return node.children.map((child) => (types === null ? buildExpression(child, scope) : buildTyped(child, scope, types)));
}

function single<T extends ValueType>(node: ElementNode, scope: BuildScope, types: readonly T[]): ExpressionOf<T> {
  const [only] = node.children;
  if (only === undefined || node.children.length !== 1) gap(node, 'needs exactly one operand');
  return buildTyped(only, scope, types);
}

function equals(node: ElementNode, scope: BuildScope): ValidExpression {
  const [first, second, ...rest] = operandsOf(node, scope, null);
  if (first === undefined || second === undefined) gap(node, 'needs at least two operands');
  return { kind: 'equals', type: 'boolean', location: node.location, operands: [first, second, ...rest] };
}

function logical(node: ElementNode, scope: BuildScope, kind: 'and' | 'or'): ValidExpression {
  const eager = oneOf(node, 'mode', ['EAGER'], null) === 'EAGER';
  return { kind, type: 'boolean', location: node.location, eager, operands: operandsOf(node, scope, ['boolean']) };
}

function implies(node: ElementNode, scope: BuildScope): ValidExpression {
  const [premise, conclusion] = node.children;
  if (premise === undefined || conclusion === undefined || node.children.length !== 2) gap(node, 'needs exactly two operands');
  return {
    kind: 'implies',
    type: 'boolean',
    location: node.location,
    premise: buildTyped(premise, scope, ['boolean']),
    conclusion: buildTyped(conclusion, scope, ['boolean']),
  };
}

function contains(node: ElementNode, scope: BuildScope): ValidExpression {
  const [list, ...items] = node.children;
  if (list === undefined) gap(node, 'needs a list operand');
  return {
    kind: 'contains',
    type: 'boolean',
    location: node.location,
    mode: matchMode(node),
    list: buildTyped(list, scope, ['list']),
    items: items.map((item) => buildExpression(item, scope)),
  };
}
