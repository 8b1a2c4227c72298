import { ALL_SOLUTIONS } from '@custos/contracts';

/** Who is calling, as proven by a verified access token. */
export class Principal {
  readonly allSolutions: boolean;

  constructor(
    readonly clientId: string,
    readonly scopes: ReadonlySet<string>,
    readonly solutions: ReadonlySet<string>,
  ) {
    this.allSolutions = solutions.has(ALL_SOLUTIONS);
  }

  hasScope(scope: string): boolean {
    return this.scopes.has(scope);
  }

  /** May this client touch resources of `solution`? */
  mayAccess(solution: string): boolean {
    return this.allSolutions || this.solutions.has(solution);
  }
}
