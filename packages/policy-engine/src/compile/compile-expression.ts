import type {
  ComparisonNode,
  EqualsNode,
  EventValueNode,
  ImpliesNode,
  LogicalNode,
  NotNode,
  PipNode,
  ValidExpression,
  ValueChangedNode,
  VariableNode,
} from '../ast/valid/expressions';
import type { JsonValue } from '../ast/value-types';
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
import { containsMatch, eventHasParameter, regexMatch } from '../functions/matching';
import { pipValue } from '../functions/pip';
import { strict } from '../functions/strict';
import { valueChanged } from '../functions/value-changed';
import { variableValue } from '../functions/variables';
import { compileExplained } from './explain-values';
import { compileContinuousOccurrence, compileCount } from './compile-history';
import { compileParameters } from './compile-parameters';
import type { CompileScope } from './scope';

const all = (expressions: readonly ValidExpression[], scope: CompileScope): CompiledExpression[] =>
  expressions.map((expression) => compileExpression(expression, scope));

/** One expression; an explaining program's records operand values too (compile/explain-values.ts). */
export function compileExpression(expression: ValidExpression, scope: CompileScope): CompiledExpression {
  const explain = scope.explain;
  return explain === null ? compileNode(expression, scope) : compileExplained(expression, scope, explain, compileNode);
}

/** One case per kind of expression; the functions themselves live in functions/, one file per family. */
function compileNode(expression: ValidExpression, scope: CompileScope): CompiledExpression {
  switch (expression.kind) {
    case 'and':
    case 'or':
      return logical(expression, scope);
    case 'not':
      return compileNot(expression, scope);
    case 'xor':
      return strict('boolean', all(expression.operands, scope), xorOf);
    case 'implies':
      return compileImplies(expression, scope);
    case 'equals':
      return compileEquals(expression, scope);
    case 'comparison':
      return compileComparison(expression, scope);
    case 'arithmetic':
      return strict('number', all(expression.operands, scope), arithmetic(expression.operator));
    case 'size':
      return strict('number', all([expression.operand], scope), size);
    case 'concat':
      return strict('string', all(expression.operands, scope), concat);
    case 'regex':
      return strict('boolean', all(expression.operands, scope), regexMatch(expression.regex, expression.mode));
    case 'contains':
      return strict('boolean', all([expression.list, ...expression.items], scope), containsMatch(expression.mode));
    case 'eventHasParameter':
      return strict('boolean', all(expression.operands, scope), eventHasParameter(expression.mode));
    case 'date':
      return syncExpression('boolean', dateIs(expression.comparison, expression.dayOfYear));
    case 'time':
      return syncExpression('boolean', timeIs(expression.comparison, expression.minuteOfDay));
    case 'day':
      return syncExpression('boolean', dayIn(expression.weekdays));
    case 'count':
      return compileCount(expression, scope);
    case 'continuousOccurrence':
      return compileContinuousOccurrence(expression, scope);
    case 'execute': {
      const { action, parameters } = expression.execute;
      return asyncExpression('boolean', conditionExecute({ action, solution: scope.solution, parameters: compileParameters(parameters, scope) }));
    }
    case 'constant':
      return syncExpression(expression.type, constant(expression.value));
    case 'event':
      return syncExpression(expression.type, compileEventValue(expression));
    case 'pip':
      return compilePip(expression, scope);
    case 'variable':
      return compileVariable(expression, scope);
    case 'valueChanged':
      return compileValueChanged(expression, scope);
    default:
      return unreachable(expression);
  }
}

function unreachable(expression: never): never {
  throw new Error(`no compiler for expression ${JSON.stringify(expression)}`);
}

/** `and`/`or`: plain short-circuit closures unless some child waits for a port. */
function logical(expression: LogicalNode, scope: CompileScope): CompiledExpression {
  const children = all(expression.operands, scope);
  const isAnd = expression.kind === 'and';
  if (allSync(children)) {
    const evaluators = children.map((child) => child.evaluate as Evaluate<boolean>);
    return syncExpression('boolean', (isAnd ? and : or)(evaluators, expression.eager));
  }
  return asyncExpression('boolean', foldAsync(children.map((child) => child.evaluate as EvaluateAsync<boolean>), isAnd, expression.eager));
}

function compileNot(expression: NotNode, scope: CompileScope): CompiledExpression {
  const only = compileExpression(expression.operand, scope);
  if (only.mode === 'sync') return syncExpression('boolean', not(only.evaluate as Evaluate<boolean>));
  return strict('boolean', [only], (values) => values[0] !== true);
}

/** Two synchronous operands, the usual case, get a closure without an array of values. */
function compileComparison(expression: ComparisonNode, scope: CompileScope): CompiledExpression {
  const children = all(expression.operands, scope);
  const [left, right] = children;
  if (children.length !== 2 || left?.mode !== 'sync' || right?.mode !== 'sync') return strict('boolean', children, comparison(expression.operator));
  return syncExpression('boolean', compare2(left.evaluate as Evaluate<number>, right.evaluate as Evaluate<number>, expression.operator));
}

function compileImplies(expression: ImpliesNode, scope: CompileScope): CompiledExpression {
  const premise = compileExpression(expression.premise, scope);
  const conclusion = compileExpression(expression.conclusion, scope);
  if (premise.mode === 'sync' && conclusion.mode === 'sync') {
    return syncExpression('boolean', implies(premise.evaluate as Evaluate<boolean>, conclusion.evaluate as Evaluate<boolean>));
  }
  return asyncExpression('boolean', impliesAsync(premise.evaluate as EvaluateAsync<boolean>, conclusion.evaluate as EvaluateAsync<boolean>));
}

function compileEquals(expression: EqualsNode, scope: CompileScope): CompiledExpression {
  const [first, ...rest] = expression.operands;
  const head = compileExpression(first, scope);
  const tail = all(rest, scope);
  if (head.mode === 'sync' && allSync(tail)) {
    return syncExpression('boolean', equals([head.evaluate as Evaluate<JsonValue>, ...tail.map((child) => child.evaluate as Evaluate<JsonValue>)]));
  }
  return strict('boolean', [head, ...tail], allEqual);
}

function compileEventValue(expression: EventValueNode): Evaluate<JsonValue> {
  const { type, parameter, defaultValue, path } = expression;
  return eventValue({ type, parameter, defaultValue, path });
}

function compilePip(expression: PipNode, scope: CompileScope): CompiledExpression {
  const { type, method, defaultValue, ttlMs, parameters } = expression;
  return asyncExpression(
    type,
    pipValue({ method, solution: scope.solution, type, defaultValue, ttlMs, parameters: compileParameters(parameters, scope) }),
  );
}

function compileVariable(expression: VariableNode, scope: CompileScope): CompiledExpression {
  const declaration = scope.variable(expression.declaration);
  const evaluate = variableValue(declaration.slot, declaration.expression.evaluate);
  const type = declaration.expression.type;
  return declaration.expression.mode === 'sync' ? syncExpression(type, evaluate as Evaluate<JsonValue>) : asyncExpression(type, evaluate);
}

function compileValueChanged(expression: ValueChangedNode, scope: CompileScope): CompiledExpression {
  const child = compileExpression(expression.operand, scope);
  scope.usage.usesHistory = true;
  return asyncExpression(
    'boolean',
    valueChanged({
      policyId: scope.policyId,
      id: expression.id,
      to: expression.to === null ? null : deepFreeze(expression.to),
      child: child.evaluate,
    }),
  );
}
