/** A signed-in session: the token lives in memory only and ends a little before the token expires. */
export interface Session {
  clientId: string;
  token: string;
  scopes: string[];
  expiresAt: number;
}

/** Margin before the token's expiry at which the console signs out, so no call is made with a dying token. */
export const EXPIRY_MARGIN_MS = 5_000;

export function sessionOf(clientId: string, token: { accessToken: string; expiresIn: number; scope: string }, now: number): Session {
  return {
    clientId,
    token: token.accessToken,
    scopes: token.scope.split(' ').filter((s) => s !== ''),
    expiresAt: now + Math.max(0, token.expiresIn * 1000 - EXPIRY_MARGIN_MS),
  };
}

/** Milliseconds until the session ends (0 once it has). */
export const remainingMs = (session: Session, now: number): number => Math.max(0, session.expiresAt - now);
