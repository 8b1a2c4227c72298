import { walk } from '../ast/nodes';
import { attributeRules } from './attribute-rules';
import type { ValidationPass } from './pass';

/** Required, unknown and malformed attributes. */
export const attributesPass: ValidationPass = {
  name: 'attributes',
  run(policy, report) {
    walk(policy, (node) => {
      const rules = attributeRules(node);
      for (const attribute of node.attributes.values()) {
        const rule = rules.get(attribute.name);
        if (rule === undefined) {
          report('unknown_attribute', `unknown attribute \`${attribute.name}\` on \`${node.name}\``, attribute.location);
          continue;
        }
        const problem = rule.check?.(attribute.value, node) ?? null;
        if (problem !== null) {
          report('invalid_attribute', `attribute \`${attribute.name}\` of \`${node.name}\`: ${problem}`, attribute.location);
        }
      }
      for (const [name, rule] of rules) {
        if (rule.required && !node.attributes.has(name)) {
          report('missing_attribute', `\`${node.name}\` needs attribute \`${name}\``, node.location);
        }
      }
    });
  },
};
