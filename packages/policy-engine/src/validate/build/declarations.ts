import type { ElementNode } from '../../ast/nodes';
import type { ValidDeclaration } from '../../ast/valid/policy';
import { buildTyped } from './build-expression';
import type { BuildScope } from './build-scope';
import { gap, text } from './read-node';

/**
 * The policy's variable declarations, each built once, when first referenced or in document order. A `variable:T`
 * links to its declaration object, so the validated tree can hold no reference to an unknown name and no cycle.
 */
export class Declarations implements BuildScope {
  private readonly nodes = new Map<string, ElementNode>();
  private readonly built = new Map<string, ValidDeclaration>();
  private readonly building = new Set<string>();

  constructor(policy: ElementNode) {
    for (const child of policy.children) {
      if (child.info.family === 'variableDeclaration') this.nodes.set(text(child, 'name'), child);
    }
  }

  /** Every declaration, in document order. */
  all(): ValidDeclaration[] {
    return [...this.nodes.entries()].map(([name, node]) => this.declaration(name, node));
  }

  declaration(name: string, at: ElementNode): ValidDeclaration {
    const known = this.built.get(name);
    if (known !== undefined) return known;
    const node = this.nodes.get(name) ?? gap(at, 'refers to an undeclared variable');
    if (this.building.has(name)) gap(at, 'refers to a variable that depends on itself');
    const [child] = node.children;
    if (child === undefined || node.children.length !== 1) gap(node, 'needs exactly one expression');
    const type = node.info.declaredType ?? gap(node, 'has no type');
    this.building.add(name);
    const declaration: ValidDeclaration = { name, type, location: node.location, value: buildTyped(child, this, [type]) };
    this.building.delete(name);
    this.built.set(name, declaration);
    return declaration;
  }
}
