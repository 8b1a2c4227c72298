import type { NextFunction, Request, Response } from 'express';
import { insufficientScope } from './errors';
import type { Principal } from './principal';
import type { TokenVerifier } from './verifier';

/** Express middleware: a verified token with `scope`, else 401/403. The principal lands in res.locals. */
export function requireScope(verifier: TokenVerifier, scope: string) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const principal = await verifier.authenticate(req.headers.authorization);
    // Who asked, even when refused for the scope: the audit trail names the caller of a refused attempt.
    res.locals.caller = principal.clientId;
    if (!principal.hasScope(scope)) throw insufficientScope(scope);
    res.locals.principal = principal;
    next();
  };
}

export function principalOf(res: Response): Principal {
  const principal = res.locals.principal as Principal | undefined;
  if (!principal) throw new Error('principalOf called on a route without requireScope');
  return principal;
}
