import { jsonResponse, problemResponse as problem, type ResponseSpec } from '@custos/service-kit';
import { BASIC_CHALLENGE } from '../oauth/errors';

/** Answers several of auth's operations share, in the OpenAPI document's words. */

export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
export const NO_STORE = { 'Cache-Control': { $ref: '#/components/headers/NoStore' } };

export const oauthError = (description: string, headers: object = {}): ResponseSpec =>
  jsonResponse(description, ref('OAuthError'), { ...NO_STORE, ...headers });

/** A failed client authentication: an OAuth error with the Basic challenge `oauthErrors.invalidClient` sends. */
export const invalidClientError = (description: string): ResponseSpec =>
  oauthError(description, { 'WWW-Authenticate': { schema: { type: 'string', const: BASIC_CHALLENGE } } });

const CHALLENGE = { 'WWW-Authenticate': { schema: { type: 'string' } } };

/** What the admin API answers to a caller it refuses. */
export const adminErrors = {
  401: problem('no token (`WWW-Authenticate: Bearer`), or a token that is invalid, expired or of a deleted client', CHALLENGE),
  403: problem('the token lacks `client:admin` (`WWW-Authenticate: Bearer error="insufficient_scope"`)', CHALLENGE),
  405: problem('method not allowed; `Allow` lists the methods of this path'),
};
