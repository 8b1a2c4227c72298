import type { SourceLocation } from '../diagnostics';
import type { ElementInfo, ElementName } from './catalogue';

/**
 * The syntax tree of a policy. Every element of the language is one `ElementNode`, named by its language name
 * (`mechanism`, `event:string`, `constant:true` …) whatever prefixes or namespace version the author used.
 * It keeps what was written, including what is invalid, so each validation pass can report on it with a location;
 * only a tree that passed validation is compiled.
 */
export interface ElementNode {
  readonly name: ElementName;
  readonly info: ElementInfo;
  readonly location: SourceLocation;
  /** By attribute name (namespaced attributes by their qualified name, so they never match a language attribute). */
  readonly attributes: ReadonlyMap<string, AttributeNode>;
  readonly children: readonly ElementNode[];
  /** True when a child element was unknown and left out: what the children lack is then not reported again. */
  readonly incomplete?: boolean;
}

export interface AttributeNode {
  readonly name: string;
  readonly value: string;
  readonly location: SourceLocation;
}

/** Visits `root` and every descendant, parents before children, in document order. */
export function walk(root: ElementNode, visit: (node: ElementNode, parent: ElementNode | null) => void): void {
  const visitNode = (node: ElementNode, parent: ElementNode | null): void => {
    visit(node, parent);
    for (const child of node.children) visitNode(child, node);
  };
  visitNode(root, null);
}
