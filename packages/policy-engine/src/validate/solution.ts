import { walk } from '../ast/nodes';
import { readUrn } from '../parse/urns';
import type { ValidationPass } from './pass';

/** policy-language.md §2: every action a policy reacts to or executes belongs to the policy's own solution. */
export const solutionPass: ValidationPass = {
  name: 'solution',
  run(policy, report) {
    const policyId = policy.attributes.get('id');
    const solution = policyId === undefined ? null : readUrn('policy', policyId.value)?.solution;
    if (solution === null || solution === undefined) return;
    walk(policy, (node) => {
      const attributeName = node.name === 'mechanism' ? 'event' : node.name === 'execute' ? 'action' : null;
      const attribute = attributeName === null ? undefined : node.attributes.get(attributeName);
      if (attribute === undefined) return;
      const action = readUrn('action', attribute.value);
      if (action === null || action.solution === solution) return;
      report(
        'solution_mismatch',
        `attribute \`${attribute.name}\` of \`${node.name}\`: \`${attribute.value}\` belongs to solution \`${action.solution}\`, but the policy belongs to solution \`${solution}\``,
        attribute.location,
      );
    });
  },
};
