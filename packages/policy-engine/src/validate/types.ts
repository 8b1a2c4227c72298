import type { ElementNode } from '../ast/nodes';
import { walk } from '../ast/nodes';
import { describeType, isExpression, type ValidationPass } from './pass';

/**
 * Static types (policy-language.md §4): every operand whose type is visible at load time must fit. In this cut every
 * expression has a declared type, so a policy that passes never meets a type error from its own structure.
 */
export const typesPass: ValidationPass = {
  name: 'types',
  run(policy, report) {
    walk(policy, (node) => {
      if (!node.info.supported) return;
      const operands = node.children.filter(isExpression);
      if (node.name === 'if' || node.name === 'elseif') {
        const condition = operands[0];
        if (condition !== undefined && !yields(condition, 'boolean')) {
          report('type_mismatch', `the condition of \`${node.name}\` must be boolean, found ${describeType(condition)}`, condition.location);
        }
      } else if (node.name === 'and' || node.name === 'or' || node.name === 'not') {
        for (const operand of operands.filter((child) => !yields(child, 'boolean'))) {
          report('type_mismatch', `\`${node.name}\` takes boolean expressions, found ${describeType(operand)}`, operand.location);
        }
      } else if (node.info.family === 'parameter') {
        const type = node.info.declaredType;
        for (const operand of operands.filter((child) => !yields(child, type))) {
          report('type_mismatch', `\`${node.name}\` needs a ${type} value, found ${describeType(operand)}`, operand.location);
        }
      }
    });
  },
};

function yields(node: ElementNode, type: string | null): boolean {
  return node.info.resultType === type;
}
