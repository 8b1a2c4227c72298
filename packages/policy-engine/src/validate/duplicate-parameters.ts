import type { ElementNode } from '../ast/nodes';
import { walk } from '../ast/nodes';
import { excerpt } from '../diagnostics';
import type { Report, ValidationPass } from './pass';

/**
 * The `parameter:*` children of one PIP query or one PXP `execute` are the named arguments of one call: a name given
 * twice would leave the component to pick one of the values, so it is refused at load. Timer events (timer/) check
 * their parameters with `reportDuplicateParameters` too.
 */
export const duplicateParametersPass: ValidationPass = {
  name: 'duplicate-parameters',
  run(policy, report) {
    walk(policy, (node) => {
      if (node.name === 'execute' || node.info.family === 'pip') reportDuplicateParameters(node.name, node.children, report);
    });
  },
};

/** Reports every `parameter:*` among `children` whose name an earlier one already has, at its `name` attribute. */
export function reportDuplicateParameters(owner: string, children: readonly ElementNode[], report: Report): void {
  const seen = new Set<string>();
  for (const child of children) {
    const name = child.info.family === 'parameter' ? child.attributes.get('name') : undefined;
    if (name === undefined) continue;
    if (seen.has(name.value)) {
      report('duplicate_parameter', `parameter \`${excerpt(name.value)}\` is given more than once in one \`${owner}\``, name.location);
    }
    seen.add(name.value);
  }
}
