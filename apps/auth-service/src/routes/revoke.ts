import type { Request, Response } from 'express';
import type { Pool } from 'pg';
import { HttpProblem, withTransaction, type AuditLog, type Principal, type TokenVerifier } from '@custos/service-kit';
import { authenticateCaller, credentialsOf, field, refuseCredentialsInUrl, type ClientAuthDeps, type Fields } from '../oauth/client-auth';
import { noStore, oauthErrors } from '../oauth/errors';
import { RevocationStore } from '../revocation/revocation-store';
import type { Revoker } from '../revocation/revoker';

export const REVOKE_PATH = '/oauth/revoke';

export interface RevokeRouteDeps extends ClientAuthDeps {
  /** Verifies the token to revoke against auth's own keys. */
  verifier: TokenVerifier;
  revoker: Revoker;
  /** The revocation and its audit record are written in one transaction. */
  pool: Pool;
  audit: AuditLog;
}

/** The token's principal, or undefined when it is not a valid token of ours (nothing to revoke then). */
async function principalOfToken(verifier: TokenVerifier, token: string): Promise<Principal | undefined> {
  try {
    return await verifier.authenticate(`Bearer ${token}`);
  } catch (error) {
    if (error instanceof HttpProblem && error.status === 401) return undefined;
    throw error;
  }
}

/**
 * POST /oauth/revoke (RFC 7009): a client revokes one of its own access tokens. Form fields `token` and
 * optionally `token_type_hint` (every token here is an access token, so the hint changes nothing); client
 * authentication as at the token endpoint, under the same failure limit. 200 whether or not the token was
 * valid, and also for a token of another client, which is left alone: the answer never tells the caller
 * whether a token it holds is genuine or whose it is.
 */
export function revokeRoute(deps: RevokeRouteDeps): (req: Request, res: Response) => Promise<void> {
  const handler = async (req: Request, res: Response): Promise<void> => {
    noStore(res);
    refuseCredentialsInUrl(req);
    const fields = req.body as Fields;
    const credentials = credentialsOf(req, fields);
    const token = field(fields, 'token');
    if (token === undefined) throw oauthErrors.invalidRequest('`token` is required');
    // Read only to refuse it repeated (RFC 6749 §3.1): every token here is an access token, so any hint fits.
    field(fields, 'token_type_hint');
    const client = await authenticateCaller(req, res, credentials, deps);
    res.locals.caller = client.id;
    const principal = await principalOfToken(deps.verifier, token);
    if (principal && principal.clientId === client.id && principal.token.id !== undefined) {
      const { id: tokenId, expiresAt } = principal.token;
      const entry = await withTransaction(deps.pool, async (tx) => {
        const revoked = await new RevocationStore(tx).revokeToken(tokenId, expiresAt);
        await deps.audit.recordIn(tx, res, { target: tokenId });
        return revoked;
      });
      deps.revoker.announce(entry);
      deps.logger.info({ clientId: client.id, requestId: res.locals.requestId }, 'access token revoked');
    }
    res.status(200).end();
  };
  return handler;
}
