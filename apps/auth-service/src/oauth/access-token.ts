import { randomUUID } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { TOKEN_ALGORITHM, TOKEN_AUDIENCE, TOKEN_ISSUER, type AccessTokenClaims } from '@custos/contracts';
import type { SigningKey } from '../keys/key-store';

/** Lifetime of an access token; also the longest a deleted client's token keeps working. */
export const TOKEN_LIFETIME_SECONDS = 3600;

export interface AccessTokenRequest {
  clientId: string;
  scopes: readonly string[];
  solutions: readonly string[];
  nowMs: number;
}

/** Signs an access token (api.md §2.1) with the active key; `kid` names the key in the header. */
export function signAccessToken(key: SigningKey, request: AccessTokenRequest): string {
  const now = Math.floor(request.nowMs / 1000);
  const claims: AccessTokenClaims = {
    iss: TOKEN_ISSUER,
    sub: request.clientId,
    aud: TOKEN_AUDIENCE,
    iat: now,
    nbf: now,
    exp: now + TOKEN_LIFETIME_SECONDS,
    jti: randomUUID(),
    scope: request.scopes.join(' '),
    solutions: [...request.solutions],
  };
  // RFC 9068 §2.1: access tokens in JWT form are typed `at+jwt`.
  return jwt.sign(claims, key.privateKey, { algorithm: TOKEN_ALGORITHM, keyid: key.kid, header: { alg: TOKEN_ALGORITHM, typ: 'at+jwt' } });
}
