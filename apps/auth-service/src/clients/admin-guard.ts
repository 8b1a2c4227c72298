import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { SCOPES } from '@custos/contracts';
import { invalidToken, principalOf, requireScope, type TokenVerifier } from '@custos/service-kit';
import type { ClientStore } from './client-store';

/**
 * The guard of the admin API: a valid token with `client:admin` (verified locally against our
 * own keys), whose client still exists — a deleted administrator loses access at once here,
 * not only when its token expires.
 */
export function requireAdmin(verifier: TokenVerifier, clients: ClientStore): RequestHandler[] {
  const stillExists = async (_req: Request, res: Response, next: NextFunction): Promise<void> => {
    const principal = principalOf(res);
    if (!(await clients.find(principal.clientId))) throw invalidToken('the client of this token no longer exists');
    next();
  };
  return [requireScope(verifier, SCOPES.clientAdmin), stillExists];
}

/** The `id` path parameter as one string. */
export function idParam(req: Request): string {
  const value = req.params.id;
  return Array.isArray(value) ? value.join('/') : (value ?? '');
}
