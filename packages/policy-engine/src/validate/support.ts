import type { ElementNode } from '../ast/nodes';
import { walk } from '../ast/nodes';
import type { ValidationPass } from './pass';

/** Refuses every element of the language this cut cannot decide yet, rather than ignoring it. */
export const supportPass: ValidationPass = {
  name: 'support',
  run(policy, report) {
    walk(policy, (node, parent) => {
      if (!node.info.supported) {
        report('unsupported_element', `element \`${node.name}\` is not supported yet`, node.location);
      } else if (node.name === 'execute' && parent !== null && holdsValues(parent)) {
        report('unsupported_element', 'element `execute` inside a condition is not supported yet', node.location);
      }
    });
  },
};

/** Where a child is read as a value: there `execute` is the synchronous, boolean-valued kind (§5). */
function holdsValues(parent: ElementNode): boolean {
  return (
    parent.info.role === 'expression' ||
    parent.name === 'if' ||
    parent.name === 'elseif' ||
    parent.info.family === 'parameter'
  );
}
