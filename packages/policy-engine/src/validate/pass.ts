import type { ElementNode } from '../ast/nodes';
import type { SourceLocation } from '../diagnostics';

export type Report = (code: string, message: string, location: SourceLocation) => void;

/** One named check over the syntax tree. Passes only report; none of them stops the others. */
export interface ValidationPass {
  readonly name: string;
  run(policy: ElementNode, report: Report): void;
}

export function isExpression(node: ElementNode): boolean {
  return node.info.role === 'expression' || node.name === 'execute';
}

export function describeType(node: ElementNode): string {
  return `\`${node.name}\` of type ${node.info.resultType ?? 'none'}`;
}
