import type { CompiledPolicy } from '../api';
import type { ElementNode } from '../ast/nodes';
import { readUrn } from '../parse/urns';
import { optionalAttribute, requiredAttribute } from './attributes';
import { compileCondition } from './compile-expression';
import { compileDecision, compileExecutions } from './compile-decision';
import type { BranchProgram, MechanismProgram } from './program';
import { registerProgram } from './registry';

/** Validated tree → public metadata plus the program behind it. Never fails for a tree that passed validation. */
export function compilePolicy(policy: ElementNode): CompiledPolicy {
  const id = requiredAttribute(policy, 'id');
  const urn = readUrn('policy', id);
  if (urn === null) throw new Error(`bug: validated policy id \`${id}\` is not a policy urn`);
  const mechanisms = policy.children
    .filter((child) => child.name === 'mechanism')
    .map((mechanism, index) => compileMechanism(mechanism, id, index));

  const mechanismsByAction = new Map<string, MechanismProgram[]>();
  for (const mechanism of mechanisms) {
    const list = mechanismsByAction.get(mechanism.event);
    if (list === undefined) mechanismsByAction.set(mechanism.event, [mechanism]);
    else list.push(mechanism);
  }
  const compiled: CompiledPolicy = Object.freeze({
    id,
    solution: urn.solution,
    name: optionalAttribute(policy, 'name'),
    description: optionalAttribute(policy, 'description'),
    actions: Object.freeze([...mechanismsByAction.keys()]),
  });
  registerProgram(compiled, { policyId: id, mechanismsByAction });
  return compiled;
}

function compileMechanism(node: ElementNode, policyId: string, index: number): MechanismProgram {
  const branches: BranchProgram[] = [];
  let elseifCount = 0;
  for (const child of node.children) {
    if (child.name !== 'if' && child.name !== 'elseif') continue;
    const [condition, then] = child.children;
    if (condition === undefined || then === undefined) throw new Error(`bug: validated \`${child.name}\` is incomplete`);
    branches.push({
      kind: child.name,
      index: child.name === 'if' ? 0 : elseifCount++,
      condition: compileCondition(condition),
      decision: compileDecision(then),
    });
  }
  const otherwise = node.children.find((child) => child.name === 'else');
  return {
    policyId,
    index,
    event: requiredAttribute(node, 'event'),
    branches,
    otherwise: otherwise === undefined ? null : compileDecision(otherwise),
    executions: compileExecutions(node),
  };
}
