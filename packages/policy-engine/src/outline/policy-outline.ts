import type { BranchTaken } from '../api';
import type { ElementNode } from '../ast/nodes';
import { parsePolicy } from '../parse/parse-policy';
import { readXml } from '../xml/read-xml';

/**
 * A branch a mechanism can take, named as explanations name it (`MechanismExplanation.branch`), with its place.
 * `none` is the fall-through of a mechanism with conditions and no `else`: no condition was true, and the mechanism
 * decides nothing (an explanation reports it as `none` with an outcome other than `error`). It is placed at the
 * mechanism, as no element of its own stands for it.
 */
export interface BranchOutline {
  readonly branch: BranchTaken;
  readonly line: number;
  readonly column?: number;
}

export interface MechanismOutline {
  /** 0-based position in the policy, as in explanations. */
  readonly mechanism: number;
  readonly event: string;
  readonly line: number;
  readonly column?: number;
  readonly branches: readonly BranchOutline[];
}

export interface PolicyOutline {
  readonly id: string;
  readonly mechanisms: readonly MechanismOutline[];
}

/**
 * The shape of a policy for tools that report on it, such as branch coverage: each mechanism with its `if`,
 * `elseif`s and `else` and where they are written. Null when the text is not a readable policy; call it for a policy
 * `loadPolicy` accepted, whose diagnostics are the place to learn what is wrong.
 */
export function outlinePolicy(xml: string): PolicyOutline | null {
  const read = readXml(xml);
  if (!read.ok) return null;
  const parsed = parsePolicy(read.root);
  if (!parsed.ok) return null;
  const mechanisms = parsed.policy.children.filter((child) => child.name === 'mechanism').map(outlineMechanism);
  return { id: parsed.policy.attributes.get('id')?.value ?? '', mechanisms };
}

function outlineMechanism(node: ElementNode, mechanism: number): MechanismOutline {
  const branches: BranchOutline[] = [];
  let elseifs = 0;
  for (const child of node.children) {
    let branch: BranchOutline['branch'];
    if (child.name === 'if') branch = { kind: 'if', index: 0 };
    else if (child.name === 'elseif') branch = { kind: 'elseif', index: elseifs++ };
    else if (child.name === 'else') branch = { kind: 'else' };
    else continue;
    branches.push({ branch, ...child.location });
  }
  // Without an `else`, "no condition was true" is a path of its own, which a test may or may not have taken.
  if (branches.length > 0 && !branches.some((outline) => outline.branch.kind === 'else')) branches.push({ branch: { kind: 'none' }, ...node.location });
  return { mechanism, event: node.attributes.get('event')?.value ?? '', ...node.location, branches };
}
