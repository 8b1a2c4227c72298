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
  // Made on first use: most policies declare nothing, and a cold start reads 10,000 trees (issue 26).
  private written: Map<string, { value: unknown; index: number }> | undefined;
  private read: Map<string, ValidDeclaration> | undefined;
  private reading: Set<string> | undefined;

  constructor(private readonly codec: Codec<ValidDeclaration>) {}

  /** Keeps the JSON of the declaration `name`, the `index`th of the policy; false when the name is taken. */
  declare(name: string, value: unknown, index: number): boolean {
    this.written ??= new Map();
    if (this.written.has(name)) return false;
    this.written.set(name, { value, index });
    return true;
  }

  /** Every declaration, in order. */
  all(): ValidDeclaration[] {
    return this.written === undefined ? [] : [...this.written.keys()].map((name) => this.declaration(name, null));
  }

  /** The declaration `name`, of type `type` when given. */
  declaration(name: string, type: ValueType | null): ValidDeclaration {
    const declaration = this.read?.get(name) ?? this.readDeclaration(name);
    if (type !== null && declaration.type !== type) throw new TreeDamage(`refers to \`${name}\` of type ${declaration.type}, not ${type}`);
    return declaration;
  }

  private readDeclaration(name: string): ValidDeclaration {
    const written = this.written?.get(name);
    if (written === undefined) throw new TreeDamage(`refers to the undeclared variable \`${name}\``);
    const reading = (this.reading ??= new Set());
    if (reading.has(name)) throw new TreeDamage(`the variable \`${name}\` depends on itself`);
    reading.add(name);
    let declaration: ValidDeclaration;
    try {
      declaration = this.codec.read(written.value, this);
    } catch (error) {
      // Damage inside a declaration is placed where it is written, not where it was first referenced.
      throw error instanceof TreeDamage ? error.root('policy', 'declarations', written.index) : error;
    } finally {
      reading.delete(name);
    }
    (this.read ??= new Map()).set(name, declaration);
    return declaration;
  }
}
