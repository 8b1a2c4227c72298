import type { Diagnostic } from '../api';
import type { ElementNode } from '../ast/nodes';
import type { SourceLocation } from '../diagnostics';

export type Report = (code: string, message: string, location: SourceLocation) => void;

/** One named check over the syntax tree. Passes only report; none of them stops the others. */
export interface ValidationPass {
  readonly name: string;
  /** `reported`: what the parser and the passes before this one found, for a pass that only adds to it. */
  run(policy: ElementNode, report: Report, reported: readonly Diagnostic[]): void;
}

export function isExpression(node: ElementNode): boolean {
  return node.info.role === 'expression' || node.name === 'execute';
}

export function describeType(node: ElementNode): string {
  return `\`${node.name}\` of type ${node.info.resultType ?? 'none'}`;
}
