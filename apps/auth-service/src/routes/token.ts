import type { Request, Response } from 'express';
import type { KeyStore } from '../keys/key-store';
import { signAccessToken, TOKEN_LIFETIME_SECONDS } from '../oauth/access-token';
import { authenticateCaller, credentialsOf, field, refuseCredentialsInUrl, type ClientAuthDeps, type Fields } from '../oauth/client-auth';
import { noStore, oauthErrors } from '../oauth/errors';
import type { Clock } from '../ratelimit/failure-limiter';
import type { RevocationStore } from '../revocation/revocation-store';

export const TOKEN_PATH = '/oauth/token';
/** A token request is a handful of short fields. */
export const TOKEN_BODY_LIMIT = 8 * 1024;
export const GRANT_TYPE = 'client_credentials';

/** RFC 6749 §3.3: scope-token = 1*( %x21 / %x23-5B / %x5D-7E ). */
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;

export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  scope: string;
}

export interface TokenRouteDeps extends ClientAuthDeps {
  keys: KeyStore;
  revocations: RevocationStore;
  clock: Clock;
  issued: () => void;
}

/** The requested scopes, deduplicated; undefined when none was asked for (all of the client's). */
function requestedScopes(scope: string | undefined): Set<string> | undefined {
  if (scope === undefined) return undefined;
  const tokens = scope.split(' ').filter((token) => token !== '');
  if (tokens.length === 0) throw oauthErrors.invalidScope('`scope` names no scope');
  const malformed = tokens.find((token) => !SCOPE_TOKEN.test(token));
  if (malformed !== undefined) throw oauthErrors.invalidScope('`scope` holds a character RFC 6749 does not allow');
  return new Set(tokens);
}

/** POST /oauth/token: client credentials grant (RFC 6749 §4.4, api.md §2.1). */
export function tokenRoute(deps: TokenRouteDeps): (req: Request, res: Response) => Promise<void> {
  const { keys, revocations, clock } = deps;
  const handler = async (req: Request, res: Response): Promise<void> => {
    noStore(res);
    refuseCredentialsInUrl(req);
    const fields = req.body as Fields;
    const grantType = field(fields, 'grant_type');
    if (grantType === undefined) throw oauthErrors.invalidRequest('`grant_type` is required');
    if (grantType !== GRANT_TYPE) {
      throw oauthErrors.unsupportedGrantType(`only \`${GRANT_TYPE}\` is supported, not \`${grantType.slice(0, 64)}\``);
    }
    const credentials = credentialsOf(req, fields);
    const requested = requestedScopes(field(fields, 'scope'));
    const client = await authenticateCaller(req, res, credentials, deps);

    let scopes = client.scopes;
    if (requested) {
      const refused = [...requested].filter((scope) => !client.scopes.includes(scope));
      if (refused.length > 0) {
        throw oauthErrors.invalidScope(`not granted to this client: ${refused.map((s) => `\`${s.slice(0, 64)}\``).join(', ')}`);
      }
      scopes = client.scopes.filter((scope) => requested.has(scope));
    }
    // After a revocation of this client's tokens, new ones are dated past it (by a second at most).
    const earliest = await revocations.issueNoEarlierThan(client.id);
    const accessToken = signAccessToken(await keys.currentSigningKey(), {
      clientId: client.id,
      scopes,
      solutions: client.solutions,
      nowMs: Math.max(clock(), (earliest ?? 0) * 1000),
    });
    deps.issued();
    const body: TokenResponse = { access_token: accessToken, token_type: 'Bearer', expires_in: TOKEN_LIFETIME_SECONDS, scope: scopes.join(' ') };
    res.status(200).json(body);
  };
  return handler;
}
