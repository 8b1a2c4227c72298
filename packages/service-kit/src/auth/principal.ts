import { ALL_SOLUTIONS } from '@custos/contracts';

/** The token a principal presented: what revoking it takes (`jti`), and its times in seconds. */
export interface TokenFacts {
  id: string | undefined;
  issuedAt: number;
  expiresAt: number;
}

/** Who is calling, as proven by a verified access token. */
export class Principal {
  readonly allSolutions: boolean;

  constructor(
    readonly clientId: string,
    readonly scopes: ReadonlySet<string>,
    readonly solutions: ReadonlySet<string>,
    readonly token: TokenFacts = { id: undefined, issuedAt: 0, expiresAt: 0 },
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
