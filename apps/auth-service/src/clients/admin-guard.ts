import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { SCOPES } from '@custos/contracts';
import { invalidToken, principalOf, requireScope, type TokenVerifier } from '@custos/service-kit';
import type { RevocationStore } from '../revocation/revocation-store';
import type { ClientStore } from './client-store';

/**
 * The guard of the admin API: a valid token with `client:admin` (or `scope`: `audit:read` for the trail; verified locally against our
 * own keys), whose client still exists and which is not revoked — a deleted administrator, or
 * one whose tokens were revoked, loses access at once here (the database is asked every time).
 */
export function requireAdmin(verifier: TokenVerifier, clients: ClientStore, revocations: RevocationStore, scope: string = SCOPES.clientAdmin): RequestHandler[] {
  const stillExists = async (_req: Request, res: Response, next: NextFunction): Promise<void> => {
    const principal = principalOf(res);
    if (!(await clients.find(principal.clientId))) throw invalidToken('the client of this token no longer exists');
    if (await revocations.covers(principal.clientId, principal.token.id, principal.token.issuedAt)) throw invalidToken('the token has been revoked');
    next();
  };
  return [requireScope(verifier, scope), stillExists];
}

/** The `id` path parameter as one string. */
export function idParam(req: Request): string {
  const value = req.params.id;
  return Array.isArray(value) ? value.join('/') : (value ?? '');
}
