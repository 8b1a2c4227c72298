/** A tree that is not the shape `serializeValidPolicy` writes; `where` is the path to the offending value. */
export class TreeDamage extends Error {
  constructor(
    readonly where: string,
    problem: string,
  ) {
    super(`${where}: ${problem}`);
  }
}
