import { walk } from '../ast/nodes';
import { closestName } from '../closest-name';
import { attributeRules } from './attribute-rules';
import type { ValidationPass } from './pass';

/** Required, unknown (with the closest known name) and malformed attributes. */
export const attributesPass: ValidationPass = {
  name: 'attributes',
  run(policy, report) {
    walk(policy, (node) => {
      const rules = attributeRules(node);
      // A required attribute that is misspelt is reported once, as the unknown attribute it became.
      const meant = new Set<string>();
      for (const attribute of node.attributes.values()) {
        const rule = rules.get(attribute.name);
        if (rule === undefined) {
          const closest = closestName(attribute.name, [...rules.keys()].filter((name) => !node.attributes.has(name)));
          if (closest !== null) meant.add(closest);
          const suggestion = closest === null ? '' : `; did you mean \`${closest}\`?`;
          report('unknown_attribute', `unknown attribute \`${attribute.name}\` on \`${node.name}\`${suggestion}`, attribute.location);
          continue;
        }
        const problem = rule.check?.(attribute.value, node) ?? null;
        if (problem !== null) {
          report('invalid_attribute', `attribute \`${attribute.name}\` of \`${node.name}\`: ${problem}`, attribute.location);
        }
      }
      for (const [name, rule] of rules) {
        if (rule.required && !node.attributes.has(name) && !meant.has(name)) {
          report('missing_attribute', `\`${node.name}\` needs attribute \`${name}\``, node.location);
        }
      }
    });
  },
};
