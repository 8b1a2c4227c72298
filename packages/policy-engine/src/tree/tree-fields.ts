import { VALUE_TYPES, type ValueType } from '../ast/value-types';
import { TreeDamage, TreePath } from './tree-damage';

/** A JSON object of the tree with the path that leads to it, so every complaint says where it is. */
export class Fields {
  private constructor(
    readonly where: TreePath,
    private readonly value: Record<string, unknown>,
  ) {}

  static of(value: unknown, where: TreePath): Fields {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new TreeDamage(where, 'is not an object');
    return new Fields(where, value as Record<string, unknown>);
  }

  at(key: string): TreePath {
    return new TreePath(this.where, key);
  }

  raw(key: string): unknown {
    return Object.prototype.hasOwnProperty.call(this.value, key) ? this.value[key] : undefined;
  }

  object(key: string): Fields {
    return Fields.of(this.raw(key), this.at(key));
  }

  objectOrNull(key: string): Fields | null {
    return this.raw(key) === null ? null : this.object(key);
  }

  string(key: string): string {
    const value = this.raw(key);
    if (typeof value !== 'string') throw new TreeDamage(this.at(key), 'is not a string');
    return value;
  }

  stringOrNull(key: string): string | null {
    return this.raw(key) === null ? null : this.string(key);
  }

  boolean(key: string): boolean {
    const value = this.raw(key);
    if (typeof value !== 'boolean') throw new TreeDamage(this.at(key), 'is not a boolean');
    return value;
  }

  /** A whole number in `[min, max]`. */
  integer(key: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
    return wholeNumber(this.raw(key), this.at(key), min, max);
  }

  integerOrNull(key: string, min: number, max?: number): number | null {
    return this.raw(key) === null ? null : this.integer(key, min, max);
  }

  oneOf<T extends string>(key: string, values: readonly T[]): T {
    const value = this.raw(key);
    if (typeof value !== 'string' || !(values as readonly string[]).includes(value)) {
      throw new TreeDamage(this.at(key), `is not one of ${values.map((item) => `\`${item}\``).join(', ')}`);
    }
    return value as T;
  }

  type(key: string): ValueType {
    return this.oneOf(key, VALUE_TYPES);
  }

  /**
   * The items of a list, each with its path; `min` items at least. A hole (an array built in memory, never parsed
   * JSON) is refused here: `map` would skip it and keep it, and the compiled program would get an operand that is
   * not there.
   */
  list(key: string, min = 0): Array<{ value: unknown; where: TreePath }> {
    const value = this.raw(key);
    if (!Array.isArray(value)) throw new TreeDamage(this.at(key), 'is not a list');
    if (value.length < min) throw new TreeDamage(this.at(key), `needs at least ${min} item${min === 1 ? '' : 's'}`);
    const where = this.at(key);
    const items: Array<{ value: unknown; where: TreePath }> = [];
    for (let index = 0; index < value.length; index += 1) {
      if (!(index in value)) throw new TreeDamage(new TreePath(where, index), 'is missing');
      items.push({ value: value[index] as unknown, where: new TreePath(where, index) });
    }
    return items;
  }
}

/** `value` as a whole number in `[min, max]`. */
export function wholeNumber(value: unknown, where: TreePath, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
    throw new TreeDamage(where, `is not a whole number from ${min} to ${max}`);
  }
  return value;
}
