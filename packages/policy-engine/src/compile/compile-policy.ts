import type { CompiledPolicy } from '../api';
import type { ElementNode } from '../ast/nodes';
import type { EvaluateAsync } from '../functions/evaluation';
import { readUrn } from '../parse/urns';
import { optionalAttribute, requiredAttribute } from './attributes';
import { compileExpression } from './compile-expression';
import { compileDecision, compileExecutions } from './compile-decision';
import type { BranchProgram, DecisionProgram, ExecutionProgram, MechanismProgram } from './program';
import { registerProgram } from './registry';
import { CompileScope } from './scope';

/** Validated tree → public metadata plus the program behind it. Never fails for a tree that passed validation. */
export function compilePolicy(policy: ElementNode): CompiledPolicy {
  const id = requiredAttribute(policy, 'id');
  const urn = readUrn('policy', id);
  if (urn === null) throw new Error(`bug: validated policy id \`${id}\` is not a policy urn`);
  const declarations = new Map<string, ElementNode>();
  for (const child of policy.children) {
    if (child.info.family === 'variableDeclaration') declarations.set(requiredAttribute(child, 'name'), child);
  }
  const scope = new CompileScope(id, urn.solution, declarations, compileExpression);
  // Every declaration compiles, referenced or not: what loadPolicy accepts must compile.
  for (const name of declarations.keys()) scope.variable(name);
  const mechanisms = policy.children
    .filter((child) => child.name === 'mechanism')
    .map((mechanism, index) => compileMechanism(mechanism, scope, index));

  const mechanismsByAction = new Map<string, MechanismProgram[]>();
  for (const mechanism of mechanisms) {
    const list = mechanismsByAction.get(mechanism.event);
    if (list === undefined) mechanismsByAction.set(mechanism.event, [mechanism]);
    else list.push(mechanism);
  }
  const { usage } = scope;
  const compiled: CompiledPolicy = Object.freeze({
    id,
    solution: urn.solution,
    name: optionalAttribute(policy, 'name'),
    description: optionalAttribute(policy, 'description'),
    actions: Object.freeze([...mechanismsByAction.keys()]),
    historyActions: Object.freeze([...usage.actions]),
    usesHistory: usage.usesHistory,
    maxHistorySpanMs: usage.actions.length === 0 ? 0 : usage.reachMs,
    historyFilters: Object.freeze(usage.filters.map((filter) => Object.freeze({ ...filter }))),
    usesPorts: mechanisms.some((mechanism) => mechanism.mode === 'async'),
  });
  registerProgram(compiled, { policyId: id, mechanismsByAction });
  return compiled;
}

function compileMechanism(node: ElementNode, scope: CompileScope, index: number): MechanismProgram {
  const branches: BranchProgram[] = [];
  let elseifCount = 0;
  let asynchronous = false;
  for (const child of node.children) {
    if (child.name !== 'if' && child.name !== 'elseif') continue;
    const [condition, then] = child.children;
    if (condition === undefined || then === undefined) throw new Error(`bug: validated \`${child.name}\` is incomplete`);
    const compiled = compileExpression(condition, scope);
    if (compiled.type !== 'boolean') throw new Error(`bug: condition \`${condition.name}\` is of type ${compiled.type}`);
    asynchronous ||= compiled.mode === 'async';
    branches.push({
      kind: child.name,
      index: child.name === 'if' ? 0 : elseifCount++,
      condition: compiled.evaluate as EvaluateAsync<boolean>,
      decision: compileDecision(then, scope),
    });
  }
  const otherwiseNode = node.children.find((child) => child.name === 'else');
  const otherwise = otherwiseNode === undefined ? null : compileDecision(otherwiseNode, scope);
  const executions = compileExecutions(node, scope);
  const decisions: Array<DecisionProgram | null> = [...branches.map((branch) => branch.decision), otherwise];
  const allExecutions: ExecutionProgram[] = [...executions, ...decisions.flatMap((decision) => decision?.executions ?? [])];
  const parameters = [
    ...allExecutions.flatMap((execution) => execution.parameters),
    ...decisions.flatMap((decision) => decision?.modifiers.flatMap((modifier) => modifier.parameters) ?? []),
  ];
  asynchronous ||= parameters.some((parameter) => parameter.mode === 'async');
  return {
    policyId: scope.policyId,
    index,
    event: requiredAttribute(node, 'event'),
    mode: asynchronous ? 'async' : 'sync',
    branches,
    otherwise,
    executions,
  };
}
