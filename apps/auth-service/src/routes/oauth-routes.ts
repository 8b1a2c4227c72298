import { ALL_SCOPES } from '@custos/contracts';
import { jsonResponse, problemResponse as problem } from '@custos/service-kit';
import { authRoute } from './context';
import { JWKS_MAX_AGE_SECONDS, JWKS_PATH, jwksHandler } from './jwks';
import { revocationsHandler } from './revocations';
import { REVOKE_PATH } from './revoke';
import { TOKEN_BODY_LIMIT, TOKEN_PATH } from './token';
import { invalidClientError, NO_STORE, oauthError, ref } from './responses';

/** What both client-authenticated form endpoints (token, revoke) answer besides their own 200/400/401. */
const formEndpointErrors = {
  405: oauthError('`invalid_request`: only POST; `Allow` lists it'),
  413: oauthError(`\`invalid_request\`: body over ${TOKEN_BODY_LIMIT} bytes`),
  415: oauthError('`invalid_request`: not `application/x-www-form-urlencoded` (UTF-8)'),
  429: oauthError('`too_many_requests`: too many failed attempts for this client id from this address, or from this address', {
    'Retry-After': { description: 'seconds', schema: { type: 'integer' } },
  }),
};
const CLIENT_AUTHENTICATION = [{ basic: [] }, {}];

/**
 * The form body of a client-authenticated endpoint: its own fields, then the client credentials it may carry instead
 * of HTTP Basic, within the one size limit both share.
 */
const clientForm = (required: string[], fields: Record<string, object>) => ({
  media: 'form' as const,
  limit: TOKEN_BODY_LIMIT,
  schema: {
    type: 'object',
    required,
    properties: { ...fields, client_id: { type: 'string' }, client_secret: { type: 'string' } },
  },
});

export const issueToken = authRoute({
  method: 'post',
  path: TOKEN_PATH,
  tags: ['oauth'],
  summary: 'issue an access token (client credentials grant)',
  description:
    'Client authentication by HTTP Basic (RFC 6749 §2.3.1: id and secret form-urlencoded, then base64) or by the ' +
    'form fields `client_id` and `client_secret` — one of them, not both. `scope` narrows the token to a subset ' +
    "of the client's scopes (default: all of them). Empty fields count as absent; a field given twice is " +
    '`invalid_request`; unknown fields are ignored. Every answer carries `Cache-Control: no-store` and ' +
    '`Pragma: no-cache`; every error (405, 413 and 415 included) has the OAuth error form. Unknown clients and ' +
    `wrong secrets get the same answer in the same time. Bodies up to ${TOKEN_BODY_LIMIT} bytes.`,
  security: CLIENT_AUTHENTICATION,
  body: clientForm(['grant_type'], {
    grant_type: { type: 'string', const: 'client_credentials', default: 'client_credentials' },
    scope: { type: 'string', description: `space separated subset of: ${ALL_SCOPES.join(' ')}` },
  }),
  responses: {
    200: jsonResponse('the token', ref('TokenResponse'), NO_STORE),
    400: oauthError('`invalid_request` (missing or repeated field, malformed Basic credentials, two authentication methods), `unsupported_grant_type`, or `invalid_scope`'),
    401: invalidClientError('`invalid_client`: unknown client, wrong secret, no or unsupported client authentication'),
    ...formEndpointErrors,
  },
  handler: (req, res, { deps }) => deps.issueToken(req, res),
});

export const revokeToken = authRoute({
  method: 'post',
  path: REVOKE_PATH,
  tags: ['oauth'],
  summary: 'revoke one of your access tokens (RFC 7009)',
  description:
    'Form fields `token` (the access token) and optionally `token_type_hint` (ignored: every token is an access ' +
    'token). Client authentication and its failure limit as at `/oauth/token`. The answer is 200 with an empty ' +
    'body whether or not the token was valid, and also for a token of another client, which stays valid: the ' +
    'answer never confirms whose a token is. A revoked token is refused by pap and pdp within about a second ' +
    '(they apply revocations published over NATS, and poll `/oauth/revocations`).',
  security: CLIENT_AUTHENTICATION,
  body: clientForm(['token'], { token: { type: 'string' }, token_type_hint: { type: 'string', examples: ['access_token'] } }),
  responses: {
    200: { description: 'revoked, or nothing to revoke', headers: NO_STORE },
    400: oauthError('`invalid_request`: `token` missing, a field repeated, two authentication methods'),
    401: invalidClientError('`invalid_client`: unknown client, wrong secret, no client authentication'),
    ...formEndpointErrors,
  },
  handler: (req, res, { deps }) => deps.revokeToken(req, res),
});

export const listRevocations = authRoute({
  method: 'get',
  path: '/oauth/revocations',
  tags: ['oauth'],
  summary: 'the revocations in force, for verifiers (public, like the JWKS)',
  description:
    'Every revoked client (`type: "sub"`: its tokens issued at or before `not_after`, seconds) and token (`type: "jti"`) ' +
    'whose tokens may still be unexpired, each named only by the SHA-256 digest (base64url) of its id, with the time ' +
    '(`expires_at`, seconds) after which it covers no valid token. pap and pdp load it at start and poll it; an ' +
    '`ETag` makes an unchanged list a 304. The same document is published on NATS subject `<NATS_PREFIX>.auth.revocations` ' +
    'for each revocation.',
  responses: {
    200: jsonResponse('the list', ref('Revocations'), { ETag: { schema: { type: 'string' } } }),
    304: { description: 'unchanged since the `If-None-Match` ETag' },
    405: problem('method not allowed'),
  },
  handler: (req, res, { deps }) => revocationsHandler(deps.revocations, deps.clock, req, res),
});

export const publishKeys = authRoute({
  method: 'get',
  path: JWKS_PATH,
  tags: ['oauth'],
  summary: 'the keys that verify access tokens (RFC 7517)',
  description: `Every key that signs, is about to sign (published ahead of a rotation) or still retiring (until every token it signed has expired), with \`kid\`, \`alg\` and \`use: "sig"\`. Cacheable for ${JWKS_MAX_AGE_SECONDS} s; verifiers refetch when they meet an unknown \`kid\`. Keys are rotated with \`npm run clients -- rotate-key\`.`,
  responses: {
    200: jsonResponse('the key set', ref('Jwks'), { 'Cache-Control': { schema: { type: 'string', const: `public, max-age=${JWKS_MAX_AGE_SECONDS}` } } }),
    405: problem('method not allowed'),
  },
  handler: (_req, res, { deps }) => jwksHandler(deps.keys, res),
});
