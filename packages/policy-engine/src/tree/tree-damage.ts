/**
 * Where a value is in a tree, as the steps that lead to it. Rendered (`policy.mechanisms[0].event`) only when a
 * value is refused: a tree that reads cleanly never pays for building the texts.
 */
export class TreePath {
  constructor(
    private readonly parent: TreePath | null,
    private readonly step: string | number,
  ) {}

  static root(name: string): TreePath {
    return new TreePath(null, name);
  }

  toString(): string {
    if (this.parent === null) return String(this.step);
    return typeof this.step === 'number' ? `${this.parent.toString()}[${this.step}]` : `${this.parent.toString()}.${this.step}`;
  }
}

/** A tree that is not the shape `serializeValidPolicy` writes; the message starts with the path to the value. */
export class TreeDamage extends Error {
  constructor(where: TreePath, problem: string) {
    super(`${where.toString()}: ${problem}`);
  }
}
