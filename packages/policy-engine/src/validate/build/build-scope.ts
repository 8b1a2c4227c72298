import type { ElementNode } from '../../ast/nodes';
import type { ValidDeclaration } from '../../ast/valid/policy';

/** What building an expression needs beyond the element in hand: the policy's declarations, built once each. */
export interface BuildScope {
  declaration(name: string, at: ElementNode): ValidDeclaration;
}
