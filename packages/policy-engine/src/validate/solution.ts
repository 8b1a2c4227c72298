import type { ElementNode } from '../ast/nodes';
import { walk } from '../ast/nodes';
import { readUrn, type UrnKind } from '../parse/urns';
import type { ValidationPass } from './pass';

/** The attribute of an element that names something of a solution, and what kind of URN it is. */
function namedUrn(node: ElementNode): { attribute: string; kind: UrnKind } | null {
  if (node.name === 'mechanism' || node.name === 'eventOccurrence') return { attribute: 'event', kind: 'action' };
  if (node.name === 'execute') return { attribute: 'action', kind: 'action' };
  if (node.info.family === 'pip') return { attribute: 'method', kind: 'info' };
  return null;
}

/**
 * policy-language.md §2: every action a policy reacts to, counts or executes, and every PIP method it asks, belongs
 * to the policy's own solution.
 */
export const solutionPass: ValidationPass = {
  name: 'solution',
  run(policy, report) {
    const policyId = policy.attributes.get('id');
    const solution = policyId === undefined ? null : readUrn('policy', policyId.value)?.solution;
    if (solution === null || solution === undefined) return;
    walk(policy, (node) => {
      const named = namedUrn(node);
      const attribute = named === null ? undefined : node.attributes.get(named.attribute);
      if (named === null || attribute === undefined) return;
      const urn = readUrn(named.kind, attribute.value);
      if (urn === null || urn.solution === solution) return;
      report(
        'solution_mismatch',
        `attribute \`${attribute.name}\` of \`${node.name}\`: \`${attribute.value}\` belongs to solution \`${urn.solution}\`, but the policy belongs to solution \`${solution}\``,
        attribute.location,
      );
    });
  },
};
