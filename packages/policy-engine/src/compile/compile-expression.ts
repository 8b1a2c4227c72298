import type { ElementNode } from '../ast/nodes';
import type { JsonValue, ValueType } from '../ast/value-types';
import { arithmetic, compare2, comparison, concat, size } from '../functions/arithmetic';
import { dateIs, dayIn, timeIs } from '../functions/calendar';
import { constant, deepFreeze } from '../functions/constant';
import { allEqual, equals } from '../functions/equals';
import {
  allSync,
  asyncExpression,
  syncExpression,
  type CompiledExpression,
  type Evaluate,
  type EvaluateAsync,
} from '../functions/evaluation';
import { eventValue } from '../functions/event-value';
import { conditionExecute } from '../functions/execute';
import { and, foldAsync, implies, impliesAsync, not, or, xorOf } from '../functions/logic';
import { containsMatch, eventHasParameter, regexMatch, type MatchMode } from '../functions/matching';
import { pipValue } from '../functions/pip';
import { strict } from '../functions/strict';
import { valueChanged } from '../functions/value-changed';
import { variableValue } from '../functions/variables';
import { readComparison, readDayOfYear, readMinuteOfDay, readWeekdays } from '../parse/calendar';
import { readDuration } from '../parse/duration';
import { readJsonPath } from '../parse/json-path';
import { readLiteral } from '../parse/literals';
import { readRegex } from '../parse/regex';
import { optionalAttribute, requiredAttribute, validated } from './attributes';
import { compileContinuousOccurrence, compileCount } from './compile-history';
import { compileParameters } from './compile-parameters';
import type { CompileScope } from './scope';

type ExpressionCompiler = (node: ElementNode, scope: CompileScope) => CompiledExpression;

const operands = (node: ElementNode, scope: CompileScope): CompiledExpression[] =>
  node.children.map((child) => compileExpression(child, scope));

const matchMode = (node: ElementNode): MatchMode => (optionalAttribute(node, 'mode') ?? 'ALL') as MatchMode;

/** One compiler per expression element; the functions themselves live in functions/, one file per family. */
const CORE_COMPILERS: ReadonlyMap<string, ExpressionCompiler> = new Map<string, ExpressionCompiler>([
  ['and', (node, scope) => logical(node, scope, true)],
  ['or', (node, scope) => logical(node, scope, false)],
  ['not', compileNot],
  ['xor', (node, scope) => strict('boolean', operands(node, scope), xorOf)],
  ['implies', compileImplies],
  ['equals', compileEquals],
  ...(['less', 'lessEqual', 'greater', 'greaterEqual'] as const).map(
    (name): [string, ExpressionCompiler] => [name, (node, scope) => compileComparison(node, scope, name)],
  ),
  ...(['plus', 'minus', 'multiply', 'divide'] as const).map(
    (name): [string, ExpressionCompiler] => [name, (node, scope) => strict('number', operands(node, scope), arithmetic(name))],
  ),
  ['size', (node, scope) => strict('number', operands(node, scope), size)],
  ['concat', (node, scope) => strict('string', operands(node, scope), concat)],
  [
    'regex',
    (node, scope) =>
      strict('boolean', operands(node, scope), regexMatch(validated(readRegex(requiredAttribute(node, 'regex')), node), matchMode(node))),
  ],
  ['contains', (node, scope) => strict('boolean', operands(node, scope), containsMatch(matchMode(node)))],
  ['eventHasParameter', (node, scope) => strict('boolean', operands(node, scope), eventHasParameter(matchMode(node)))],
  [
    'date',
    (node) =>
      syncExpression(
        'boolean',
        dateIs(validated(readComparison(requiredAttribute(node, 'is')), node), validated(readDayOfYear(requiredAttribute(node, 'value')), node)),
      ),
  ],
  [
    'time',
    (node) =>
      syncExpression(
        'boolean',
        timeIs(validated(readComparison(requiredAttribute(node, 'is')), node), validated(readMinuteOfDay(requiredAttribute(node, 'value')), node)),
      ),
  ],
  ['day', (node) => syncExpression('boolean', dayIn(validated(readWeekdays(requiredAttribute(node, 'value')), node)))],
  ['count', compileCount],
  ['continuousOccurrence', compileContinuousOccurrence],
  [
    'execute',
    (node, scope) =>
      asyncExpression(
        'boolean',
        conditionExecute({ action: requiredAttribute(node, 'action'), solution: scope.solution, parameters: compileParameters(node, scope) }),
      ),
  ],
  ['constant:true', () => syncExpression('boolean', constant(true))],
  ['constant:false', () => syncExpression('boolean', constant(false))],
]);

export function compileExpression(node: ElementNode, scope: CompileScope): CompiledExpression {
  if (node.info.resultType === null) throw new Error(`bug: \`${node.name}\` is not an expression`);
  return compilerFor(node)(node, scope);
}

function compilerFor(node: ElementNode): ExpressionCompiler {
  const core = CORE_COMPILERS.get(node.name);
  if (core !== undefined) return core;
  const type = node.info.declaredType;
  if (type !== null) {
    switch (node.info.family) {
      case 'constant':
        return (element) => syncExpression(type, compileConstant(element, type));
      case 'event':
        return (element) => syncExpression(type, compileEventValue(element, type));
      case 'pip':
        return (element, scope) => compilePip(element, scope, type);
      case 'variable':
        return compileVariable;
      case 'valueChanged':
        return (element, scope) => compileValueChanged(element, scope, type);
      default:
        break;
    }
  }
  throw new Error(`bug: no compiler for validated element \`${node.name}\``);
}

/** `and`/`or`: plain short-circuit closures unless some child waits for a port. */
function logical(node: ElementNode, scope: CompileScope, isAnd: boolean): CompiledExpression {
  const children = operands(node, scope);
  const eager = optionalAttribute(node, 'mode') === 'EAGER';
  if (allSync(children)) {
    const evaluators = children.map((child) => child.evaluate as Evaluate<boolean>);
    return syncExpression('boolean', (isAnd ? and : or)(evaluators, eager));
  }
  return asyncExpression('boolean', foldAsync(children.map((child) => child.evaluate as EvaluateAsync<boolean>), isAnd, eager));
}

function compileNot(node: ElementNode, scope: CompileScope): CompiledExpression {
  const children = operands(node, scope);
  const [only] = children;
  if (only?.mode === 'sync') return syncExpression('boolean', not(only.evaluate as Evaluate<boolean>));
  return strict('boolean', children, (values) => values[0] !== true);
}

/** Two synchronous operands, the usual case, get a closure without an array of values. */
function compileComparison(node: ElementNode, scope: CompileScope, name: 'less' | 'lessEqual' | 'greater' | 'greaterEqual'): CompiledExpression {
  const children = operands(node, scope);
  const [left, right] = children;
  if (children.length !== 2 || left?.mode !== 'sync' || right?.mode !== 'sync') return strict('boolean', children, comparison(name));
  return syncExpression('boolean', compare2(left.evaluate as Evaluate<number>, right.evaluate as Evaluate<number>, name));
}

function compileImplies(node: ElementNode, scope: CompileScope): CompiledExpression {
  const [premise, conclusion] = operands(node, scope);
  if (premise === undefined || conclusion === undefined) throw new Error('bug: validated `implies` lacks operands');
  if (premise.mode === 'sync' && conclusion.mode === 'sync') {
    return syncExpression('boolean', implies(premise.evaluate as Evaluate<boolean>, conclusion.evaluate as Evaluate<boolean>));
  }
  return asyncExpression('boolean', impliesAsync(premise.evaluate as EvaluateAsync<boolean>, conclusion.evaluate as EvaluateAsync<boolean>));
}

function compileEquals(node: ElementNode, scope: CompileScope): CompiledExpression {
  const children = operands(node, scope);
  if (allSync(children)) return syncExpression('boolean', equals(children.map((child) => child.evaluate as Evaluate<JsonValue>)));
  return strict('boolean', children, allEqual);
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

function compilePip(node: ElementNode, scope: CompileScope, type: ValueType): CompiledExpression {
  const ttl = optionalAttribute(node, 'ttl');
  return asyncExpression(
    type,
    pipValue({
      method: requiredAttribute(node, 'method'),
      solution: scope.solution,
      type,
      defaultValue: validated(readLiteral(type, requiredAttribute(node, 'default')), node),
      ttlMs: ttl === null ? null : validated(readDuration(ttl), node),
      parameters: compileParameters(node, scope),
    }),
  );
}

function compileVariable(node: ElementNode, scope: CompileScope): CompiledExpression {
  const declaration = scope.variable(requiredAttribute(node, 'reference'));
  const evaluate = variableValue(declaration.slot, declaration.expression.evaluate);
  const type = declaration.expression.type;
  return declaration.expression.mode === 'sync' ? syncExpression(type, evaluate as Evaluate<JsonValue>) : asyncExpression(type, evaluate);
}

function compileValueChanged(node: ElementNode, scope: CompileScope, type: ValueType): CompiledExpression {
  const [child] = operands(node, scope);
  if (child === undefined) throw new Error('bug: validated `valueChanged` lacks its child');
  const to = optionalAttribute(node, 'to');
  scope.usage.usesHistory = true;
  return asyncExpression(
    'boolean',
    valueChanged({
      policyId: scope.policyId,
      id: requiredAttribute(node, 'id'),
      to: to === null ? null : deepFreeze(validated(readLiteral(type, to), node)),
      child: child.evaluate,
    }),
  );
}
