import type { ValidDeclaration } from '../ast/valid/policy';
import type { ValueType } from '../ast/value-types';
import type { Codec } from './codec';
import { TreeDamage } from './tree-damage';

/** Policies nest at most 100 elements deep (the XML reader's limit); anything much deeper is damage, not a policy. */
export const MAX_DEPTH = 200;

/**
 * What reading one policy's tree needs beyond the value in hand: how deep it is, and the policy's declarations, each
 * read once, when first referenced or in order, so that a `variable` links to its declaration object and the
 * validated tree can hold no reference to an unknown name, of another type, or in a cycle.
 */
export class TreeScope {
  depth = 0;
  private readonly written = new Map<string, { value: unknown; index: number }>();
  private readonly read = new Map<string, ValidDeclaration>();
  private readonly reading = new Set<string>();

  constructor(private readonly codec: Codec<ValidDeclaration>) {}

  /** Keeps the JSON of the declaration `name`, the `index`th of the policy; false when the name is taken. */
  declare(name: string, value: unknown, index: number): boolean {
    if (this.written.has(name)) return false;
    this.written.set(name, { value, index });
    return true;
  }

  /** Every declaration, in order. */
  all(): ValidDeclaration[] {
    return [...this.written.keys()].map((name) => this.declaration(name, null));
  }

  /** The declaration `name`, of type `type` when given. */
  declaration(name: string, type: ValueType | null): ValidDeclaration {
    const declaration = this.read.get(name) ?? this.readDeclaration(name);
    if (type !== null && declaration.type !== type) throw new TreeDamage(`refers to \`${name}\` of type ${declaration.type}, not ${type}`);
    return declaration;
  }

  private readDeclaration(name: string): ValidDeclaration {
    const written = this.written.get(name);
    if (written === undefined) throw new TreeDamage(`refers to the undeclared variable \`${name}\``);
    if (this.reading.has(name)) throw new TreeDamage(`the variable \`${name}\` depends on itself`);
    this.reading.add(name);
    let declaration: ValidDeclaration;
    try {
      declaration = this.codec.read(written.value, this);
    } catch (error) {
      // Damage inside a declaration is placed where it is written, not where it was first referenced.
      throw error instanceof TreeDamage ? error.root('policy', 'declarations', written.index) : error;
    } finally {
      this.reading.delete(name);
    }
    this.read.set(name, declaration);
    return declaration;
  }
}
