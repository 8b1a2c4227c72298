import type { ValidExpression } from '../ast/valid/expressions';
import type { ValidBound, ValidHistory, ValidOccurrence, ValidWhen } from '../ast/valid/history';
import type { ValidJsonPath } from '../ast/valid/located';
import type { ValidDecision, ValidExecute, ValidMechanism, ValidParameter, ValidPolicy } from '../ast/valid/policy';
import type { JsonValue } from '../ast/value-types';
import { POLICY_TREE_VERSION, type PolicyTree } from './tree-format';

/** A JSON object as written by the serializer. */
type JsonObject = { [key: string]: JsonValue };

/**
 * The JSON form of a validated policy (see `PolicyTree`): a plain value that survives `JSON.stringify` unchanged and
 * that `loadCompiledTree` compiles without reading XML.
 */
export function serializeValidPolicy(policy: ValidPolicy): PolicyTree {
  return {
    version: POLICY_TREE_VERSION,
    policy: {
      id: policy.id,
      solution: policy.solution,
      name: policy.name,
      description: policy.description,
      declarations: policy.declarations.map((declaration) => ({
        name: declaration.name,
        type: declaration.type,
        value: expression(declaration.value),
      })),
      mechanisms: policy.mechanisms.map(mechanism),
    },
  };
}

function mechanism(item: ValidMechanism): JsonObject {
  return {
    event: item.event,
    branches: item.branches.map((branch) => ({ kind: branch.kind, condition: expression(branch.condition), then: decision(branch.then) })),
    otherwise: item.otherwise === null ? null : decision(item.otherwise),
    executions: item.executions.map(execute),
  };
}

function decision(item: ValidDecision): JsonObject {
  return {
    verdict: item.verdict === null ? null : { kind: item.verdict.kind, reason: item.verdict.reason },
    modifiers: item.modifiers.map((modify) => ({
      eventParameter: modify.eventParameter,
      method: modify.method,
      path: path(modify.path),
      reason: modify.reason,
      parameters: modify.parameters.map(parameter),
    })),
    delayMs: item.delayMs,
    executions: item.executions.map(execute),
  };
}

function execute(item: ValidExecute): JsonObject {
  return { action: item.action, parameters: item.parameters.map(parameter) };
}

function parameter(item: ValidParameter): JsonObject {
  const { source } = item;
  let written: JsonObject;
  switch (source.kind) {
    case 'literal':
      written = { kind: 'literal', value: source.value };
      break;
    case 'expression':
      written = { kind: 'expression', expression: expression(source.expression) };
      break;
    case 'none':
      written = { kind: 'none' };
      break;
  }
  return { name: item.name, type: item.type, source: written };
}

const path = (item: ValidJsonPath | null): string | null => (item === null ? null : item.text);

const expressions = (items: readonly ValidExpression[]): JsonValue[] => items.map(expression);

function expression(node: ValidExpression): JsonObject {
  const { kind, type } = node;
  switch (node.kind) {
    case 'and':
    case 'or':
      return { kind, type, eager: node.eager, operands: expressions(node.operands) };
    case 'xor':
    case 'equals':
    case 'concat':
      return { kind, type, operands: expressions(node.operands) };
    case 'not':
    case 'size':
      return { kind, type, operand: expression(node.operand) };
    case 'implies':
      return { kind, type, premise: expression(node.premise), conclusion: expression(node.conclusion) };
    case 'comparison':
    case 'arithmetic':
      return { kind, type, operator: node.operator, operands: expressions(node.operands) };
    case 'regex':
      return { kind, type, regex: node.regex.pattern(), mode: node.mode, operands: expressions(node.operands) };
    case 'contains':
      return { kind, type, mode: node.mode, list: expression(node.list), items: expressions(node.items) };
    case 'eventHasParameter':
      return { kind, type, mode: node.mode, operands: expressions(node.operands) };
    case 'date':
      return { kind, type, comparison: node.comparison, dayOfYear: node.dayOfYear };
    case 'time':
      return { kind, type, comparison: node.comparison, minuteOfDay: node.minuteOfDay };
    case 'day':
      return { kind, type, weekdays: [...node.weekdays].sort((a, b) => a - b) };
    case 'count':
      return { kind, type, history: history(node.history) };
    case 'continuousOccurrence':
      return {
        kind,
        type,
        history: history(node.history),
        intervalMs: node.intervalMs,
        minOccurrences: node.minOccurrences,
        maxOccurrences: Number.isFinite(node.maxOccurrences) ? node.maxOccurrences : null,
      };
    case 'execute':
      return { kind, type, execute: execute(node.execute) };
    case 'constant':
      return { kind, type, value: node.value };
    case 'event':
      return { kind, type, parameter: node.parameter, defaultValue: node.defaultValue, path: path(node.path) };
    case 'pip':
      return { kind, type, method: node.method, defaultValue: node.defaultValue, ttlMs: node.ttlMs, parameters: node.parameters.map(parameter) };
    case 'variable':
      return { kind, type, reference: node.declaration.name };
    case 'valueChanged':
      return { kind, type, valueType: node.valueType, id: node.id, to: node.to, operand: expression(node.operand) };
  }
}

function history(item: ValidHistory): JsonObject {
  return { occurrence: occurrence(item.occurrence), when: when(item.when) };
}

function occurrence(item: ValidOccurrence): JsonObject {
  return { action: item.action, filters: item.filters.map((filter) => ({ parameter: parameter(filter.parameter), path: path(filter.path) })) };
}

function when(item: ValidWhen): JsonObject {
  if (item.kind === 'fixed') return { kind: 'fixed', fixedTime: item.fixedTime };
  return { kind: 'bounds', start: bound(item.start), end: bound(item.end) };
}

function bound(item: ValidBound | null): JsonObject | null {
  if (item === null) return null;
  return {
    // A time expression is plain data: fields of numbers and kinds.
    time: item.time === null ? null : { ...item.time },
    occurrence: item.occurrence === null ? null : { occurrence: occurrence(item.occurrence.occurrence), which: item.occurrence.which },
  };
}
