import type { ElementNode } from '../../ast/nodes';
import type { ValidBranch, ValidMechanism, ValidPolicy } from '../../ast/valid/policy';
import { readUrn } from '../../parse/urns';
import { buildDecision } from './build-decision';
import { buildTyped } from './build-expression';
import { buildExecute } from './build-parameters';
import type { BuildScope } from './build-scope';
import { Declarations } from './declarations';
import { childNamed, childrenNamed, gap, optionalText, text } from './read-node';

/**
 * The syntax tree of a policy that passed every pass → the validated tree compile takes. Throws `TreeGap` where the
 * tree lacks a shape the passes promise; validatePolicy reports it.
 */
export function buildValidPolicy(policy: ElementNode): ValidPolicy {
  const id = text(policy, 'id');
  const urn = readUrn('policy', id) ?? gap(policy, 'has an id that is not a policy urn');
  const declarations = new Declarations(policy);
  return {
    id,
    solution: urn.solution,
    location: policy.location,
    name: optionalText(policy, 'name'),
    description: optionalText(policy, 'description'),
    declarations: declarations.all(),
    mechanisms: childrenNamed(policy, 'mechanism').map((mechanism) => buildMechanism(mechanism, declarations)),
  };
}

function buildMechanism(node: ElementNode, scope: BuildScope): ValidMechanism {
  const [first, ...rest] = node.children.filter((child) => child.name === 'if' || child.name === 'elseif');
  if (first?.name !== 'if' || rest.some((branch) => branch.name !== 'elseif')) gap(node, 'needs one `if` before its `elseif`s');
  const otherwise = childNamed(node, 'else');
  return {
    location: node.location,
    event: text(node, 'event'),
    branches: [buildBranch(first, scope, 'if'), ...rest.map((branch) => buildBranch(branch, scope, 'elseif'))],
    otherwise: otherwise === null ? null : buildDecision(otherwise, scope),
    executions: childrenNamed(node, 'execute').map((execute) => buildExecute(execute, scope)),
  };
}

function buildBranch<Kind extends 'if' | 'elseif'>(node: ElementNode, scope: BuildScope, kind: Kind): ValidBranch<Kind> {
  const [condition, then] = node.children;
  if (condition === undefined || then?.name !== 'then' || node.children.length !== 2) gap(node, 'needs a condition and a `then`');
  return { kind, location: node.location, condition: buildTyped(condition, scope, ['boolean']), then: buildDecision(then, scope) };
}
