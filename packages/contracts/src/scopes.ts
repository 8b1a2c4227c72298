export const SCOPES = {
  eventDecide: 'event:decide',
  policyRead: 'policy:read',
  policyWrite: 'policy:write',
  componentRead: 'component:read',
  componentWrite: 'component:write',
  clientAdmin: 'client:admin',
  /** Change a solution's settings (its default decisions): pap `PUT /ws/solutions/{solution}/settings`. */
  solutionAdmin: 'solution:admin',
  /** Read the audit trail of management: pap `GET /ws/audit` (with auth's records), auth `GET /audit`. */
  auditRead: 'audit:read',
} as const;

export type Scope = (typeof SCOPES)[keyof typeof SCOPES];

export const ALL_SCOPES: readonly Scope[] = Object.values(SCOPES);

/** The `solutions` claim value that grants every solution. */
export const ALL_SOLUTIONS = '*';

/** Claims of a Custos access token (api.md §2.1). */
export interface AccessTokenClaims {
  iss: string;
  sub: string;
  aud: string | string[];
  iat: number;
  exp: number;
  nbf?: number;
  jti: string;
  scope: string;
  solutions: string[];
}

export const TOKEN_ISSUER = 'custos-auth';
export const TOKEN_AUDIENCE = 'custos';
export const TOKEN_ALGORITHM = 'ES256';
