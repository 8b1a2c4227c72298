import type { ElementNode } from '../../ast/nodes';
import type { SourceLocation } from '../../diagnostics';
import type { ReadResult } from '../../parse/read-result';

/**
 * A syntax tree that does not have the shape the validated tree needs. The passes exclude every such tree before it
 * is built, so meeting one means a pass let something through: it is reported as a located structure problem rather
 * than crashing a load.
 */
export class TreeGap extends Error {
  constructor(
    message: string,
    readonly location: SourceLocation,
  ) {
    super(message);
  }
}

export function gap(node: ElementNode, problem: string): never {
  throw new TreeGap(`\`${node.name}\` ${problem}`, node.location);
}

export function text(node: ElementNode, name: string): string {
  return node.attributes.get(name)?.value ?? gap(node, `needs attribute \`${name}\``);
}

export function optionalText(node: ElementNode, name: string): string | null {
  return node.attributes.get(name)?.value ?? null;
}

/** An attribute read by the reader the attributes pass checked it with. */
export function read<T>(node: ElementNode, name: string, reader: (text: string) => ReadResult<T>): T {
  return valueOfRead(node, name, reader(text(node, name)));
}

export function readOptional<T>(node: ElementNode, name: string, reader: (text: string) => ReadResult<T>): T | null {
  const written = optionalText(node, name);
  return written === null ? null : valueOfRead(node, name, reader(written));
}

/** An attribute that must be one of `allowed`; absent means `fallback`. */
export function oneOf<T extends string, F>(node: ElementNode, name: string, allowed: readonly T[], fallback: F): T | F {
  const written = optionalText(node, name);
  if (written === null) return fallback;
  return allowed.find((item) => item === written) ?? gap(node, `has an unknown \`${name}\``);
}

/** The value a reader found in attribute `name` (or in it and others). */
export function valueOfRead<T>(node: ElementNode, name: string, result: ReadResult<T>): T {
  return result.ok ? result.value : gap(node, `has an unreadable \`${name}\`: ${result.problem}`);
}

export function childNamed(node: ElementNode, name: string): ElementNode | null {
  return node.children.find((child) => child.name === name) ?? null;
}

export function onlyChild(node: ElementNode, name: string): ElementNode {
  return childNamed(node, name) ?? gap(node, `needs a \`${name}\``);
}

export function childrenNamed(node: ElementNode, name: string): ElementNode[] {
  return node.children.filter((child) => child.name === name);
}
