import type { ElementNode } from '../ast/nodes';
import { walk } from '../ast/nodes';
import type { ValueType } from '../ast/value-types';
import { describeType, isExpression, type Report, type ValidationPass } from './pass';

/** What an element's operands must be: one type for all, or a rule per position. */
type OperandRule = ValueType | 'any' | ((position: number) => readonly ValueType[] | 'any');

const RULES: ReadonlyMap<string, OperandRule> = new Map<string, OperandRule>([
  ...['and', 'or', 'xor', 'not', 'implies'].map((name): [string, OperandRule] => [name, 'boolean']),
  ...['less', 'lessEqual', 'greater', 'greaterEqual', 'plus', 'minus', 'multiply', 'divide'].map((name): [string, OperandRule] => [name, 'number']),
  ['regex', 'string'],
  ['eventHasParameter', 'string'],
  ['equals', 'any'],
  ['concat', 'any'],
  ['size', () => ['list', 'string']],
  ['contains', (position) => (position === 0 ? ['list'] : 'any')],
  ['if', 'boolean'],
  ['elseif', 'boolean'],
]);

/**
 * Static types (policy-language.md §4): every expression has a type visible at load time (a `variable:T` has the T
 * of its declaration, checked by the references pass), so every operand is checked here and a policy that passes
 * meets type errors at run time only from event values.
 */
export const typesPass: ValidationPass = {
  name: 'types',
  run(policy, report) {
    walk(policy, (node) => {
      const family = node.info.family;
      const operands = node.children.filter(isExpression);
      if (family === 'parameter' || family === 'variableDeclaration' || family === 'valueChanged') {
        // The catalogue gives every parameter, declaration and valueChanged a declared type.
        const type = node.info.declaredType;
        if (type !== undefined && type !== null) for (const operand of operands) check(node, operand, [type], report);
        return;
      }
      const rule = RULES.get(node.name);
      if (rule === undefined) return;
      operands.forEach((operand, position) => {
        const allowed = typeof rule === 'function' ? rule(position) : rule === 'any' ? 'any' : [rule];
        if (allowed !== 'any') check(node, operand, allowed, report);
      });
    });
  },
};

function check(node: ElementNode, operand: ElementNode, allowed: readonly ValueType[], report: Report): void {
  const type = operand.info.resultType;
  if (type !== null && allowed.includes(type)) return;
  const wanted = allowed.join(' or ');
  const message =
    node.name === 'if' || node.name === 'elseif'
      ? `the condition of \`${node.name}\` must be boolean, found ${describeType(operand)}`
      : node.info.family !== null
        ? `\`${node.name}\` needs a ${wanted} value, found ${describeType(operand)}`
        : node.name === 'contains' && allowed[0] === 'list'
          ? `the first operand of \`contains\` must be a list, found ${describeType(operand)}`
          : `\`${node.name}\` takes ${wanted} expressions, found ${describeType(operand)}`;
  report('type_mismatch', message, operand.location);
}
