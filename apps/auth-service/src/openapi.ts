import {
  ALL_SCOPES,
  createClientSchema,
  MAX_CLIENT_DESCRIPTION,
  TOKEN_ALGORITHM,
  TOKEN_AUDIENCE,
  TOKEN_ISSUER,
  problemSchema,
} from '@custos/contracts';
import { TOKEN_LIFETIME_SECONDS } from './oauth/access-token';
import { BASIC_CHALLENGE } from './oauth/errors';
import { CLIENT_BODY_LIMIT } from './routes/clients';
import { JWKS_MAX_AGE_SECONDS } from './routes/jwks';
import { TOKEN_BODY_LIMIT } from './routes/token';

const problem = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
});
const oauthError = (description: string) => ({
  description,
  headers: { 'Cache-Control': { $ref: '#/components/headers/NoStore' } },
  content: { 'application/json': { schema: { $ref: '#/components/schemas/OAuthError' } } },
});
/** A failed client authentication: an OAuth error with the Basic challenge `oauthErrors.invalidClient` sends. */
const invalidClientError = (description: string) => {
  const error = oauthError(description);
  return { ...error, headers: { ...error.headers, 'WWW-Authenticate': { schema: { type: 'string', const: BASIC_CHALLENGE } } } };
};
const json = (description: string, schema: object, headers?: object) => ({
  description,
  ...(headers ? { headers } : {}),
  content: { 'application/json': { schema } },
});

const adminErrors = {
  401: {
    ...problem('no token (`WWW-Authenticate: Bearer`), or a token that is invalid, expired or of a deleted client'),
    headers: { 'WWW-Authenticate': { schema: { type: 'string' } } },
  },
  403: {
    ...problem('the token lacks `client:admin` (`WWW-Authenticate: Bearer error="insufficient_scope"`)'),
    headers: { 'WWW-Authenticate': { schema: { type: 'string' } } },
  },
  405: problem('method not allowed; `Allow` lists the methods of this path'),
};

const idParameter = {
  name: 'id',
  in: 'path',
  required: true,
  description: 'the client id (generated ones look like `c_` + 22 base64url characters)',
  schema: { type: 'string' },
};

const health = (summary: string, description: string) => ({
  get: { summary, tags: ['operations'], security: [], responses: { 200: json(description, { type: 'object' }) } },
});

/** OpenAPI 3.1 of everything auth-service serves (also rendered at /docs). */
/** What both client-authenticated form endpoints (token, revoke) answer besides their own 200/400/401. */
const formEndpointErrors = () => ({
  405: oauthError('`invalid_request`: only POST; `Allow` lists it'),
  413: oauthError(`\`invalid_request\`: body over ${TOKEN_BODY_LIMIT} bytes`),
  415: oauthError('`invalid_request`: not `application/x-www-form-urlencoded` (UTF-8)'),
  429: {
    ...oauthError('`too_many_requests`: too many failed attempts for this client id from this address, or from this address'),
    headers: { 'Retry-After': { description: 'seconds', schema: { type: 'integer' } } },
  },
});

export const openapi = {
  openapi: '3.1.0',
  info: {
    title: 'Custos auth-service',
    version: '0.1.0',
    description:
      'Issues access tokens (OAuth 2.0 client credentials, RFC 6749 §4.4), publishes the keys that verify them, and ' +
      `administers clients. Tokens are ${TOKEN_ALGORITHM} JWTs (header \`typ: at+jwt\`, \`kid\`) with claims iss=\`${TOKEN_ISSUER}\`, ` +
      `aud=\`${TOKEN_AUDIENCE}\`, sub (client id), iat, nbf, exp, jti, scope (space separated) and solutions ` +
      `(\`["*"]\` = every solution); they live ${TOKEN_LIFETIME_SECONDS} s. Errors are RFC 9457 problem details, ` +
      'except on the token endpoint, which answers in the RFC 6749 §5.2 form. Failed client authentications are ' +
      'limited per client id and address and per address (10 a minute by default; then 429 with `Retry-After`); a ' +
      'client id that failed that often from all addresses is slowed, never refused elsewhere.',
  },
  tags: [
    { name: 'oauth', description: 'tokens and keys' },
    { name: 'clients', description: 'client administration (scope `client:admin`)' },
    { name: 'operations', description: 'health, metrics, documentation' },
  ],
  security: [{ bearer: [] }],
  paths: {
    '/oauth/token': {
      post: {
        tags: ['oauth'],
        summary: 'issue an access token (client credentials grant)',
        description:
          'Client authentication by HTTP Basic (RFC 6749 §2.3.1: id and secret form-urlencoded, then base64) or by the ' +
          'form fields `client_id` and `client_secret` — one of them, not both. `scope` narrows the token to a subset ' +
          "of the client's scopes (default: all of them). Empty fields count as absent; a field given twice is " +
          '`invalid_request`; unknown fields are ignored. Every answer carries `Cache-Control: no-store` and ' +
          '`Pragma: no-cache`; every error (405, 413 and 415 included) has the OAuth error form. Unknown clients and ' +
          `wrong secrets get the same answer in the same time. Bodies up to ${TOKEN_BODY_LIMIT} bytes.`,
        security: [{ basic: [] }, {}],
        requestBody: {
          required: true,
          content: {
            'application/x-www-form-urlencoded': {
              schema: {
                type: 'object',
                required: ['grant_type'],
                properties: {
                  grant_type: { type: 'string', const: 'client_credentials', default: 'client_credentials' },
                  client_id: { type: 'string' },
                  client_secret: { type: 'string' },
                  scope: { type: 'string', description: `space separated subset of: ${ALL_SCOPES.join(' ')}` },
                },
              },
            },
          },
        },
        responses: {
          200: json('the token', { $ref: '#/components/schemas/TokenResponse' }, {
            'Cache-Control': { $ref: '#/components/headers/NoStore' },
          }),
          400: oauthError('`invalid_request` (missing or repeated field, malformed Basic credentials, two authentication methods), `unsupported_grant_type`, or `invalid_scope`'),
          401: invalidClientError('`invalid_client`: unknown client, wrong secret, no or unsupported client authentication'),
          ...formEndpointErrors(),
        },
      },
    },
    '/oauth/revoke': {
      post: {
        tags: ['oauth'],
        summary: 'revoke one of your access tokens (RFC 7009)',
        description:
          'Form fields `token` (the access token) and optionally `token_type_hint` (ignored: every token is an access ' +
          'token). Client authentication and its failure limit as at `/oauth/token`. The answer is 200 with an empty ' +
          'body whether or not the token was valid, and also for a token of another client, which stays valid: the ' +
          'answer never confirms whose a token is. A revoked token is refused by pap and pdp within about a second ' +
          '(they apply revocations published over NATS, and poll `/oauth/revocations`).',
        security: [{ basic: [] }, {}],
        requestBody: {
          required: true,
          content: {
            'application/x-www-form-urlencoded': {
              schema: {
                type: 'object',
                required: ['token'],
                properties: {
                  token: { type: 'string' },
                  token_type_hint: { type: 'string', examples: ['access_token'] },
                  client_id: { type: 'string' },
                  client_secret: { type: 'string' },
                },
              },
            },
          },
        },
        responses: {
          200: { description: 'revoked, or nothing to revoke', headers: { 'Cache-Control': { $ref: '#/components/headers/NoStore' } } },
          400: oauthError('`invalid_request`: `token` missing, a field repeated, two authentication methods'),
          401: invalidClientError('`invalid_client`: unknown client, wrong secret, no client authentication'),
          ...formEndpointErrors(),
        },
      },
    },
    '/oauth/revocations': {
      get: {
        tags: ['oauth'],
        summary: 'the revocations in force, for verifiers (public, like the JWKS)',
        description:
          'Every revoked client (`type: "sub"`: its tokens issued at or before `not_after`, seconds) and token (`type: "jti"`) ' +
          'whose tokens may still be unexpired, each named only by the SHA-256 digest (base64url) of its id, with the time ' +
          '(`expires_at`, seconds) after which it covers no valid token. pap and pdp load it at start and poll it; an ' +
          '`ETag` makes an unchanged list a 304. The same document is published on NATS subject `<NATS_PREFIX>.auth.revocations` ' +
          'for each revocation.',
        security: [],
        responses: {
          200: json('the list', { $ref: '#/components/schemas/Revocations' }, { ETag: { schema: { type: 'string' } } }),
          304: { description: 'unchanged since the `If-None-Match` ETag' },
          405: problem('method not allowed'),
        },
      },
    },
    '/.well-known/jwks.json': {
      get: {
        tags: ['oauth'],
        summary: 'the keys that verify access tokens (RFC 7517)',
        description: `Every key that signs, is about to sign (published ahead of a rotation) or still retiring (until every token it signed has expired), with \`kid\`, \`alg\` and \`use: "sig"\`. Cacheable for ${JWKS_MAX_AGE_SECONDS} s; verifiers refetch when they meet an unknown \`kid\`. Keys are rotated with \`npm run clients -- rotate-key\`.`,
        security: [],
        responses: {
          200: json('the key set', { $ref: '#/components/schemas/Jwks' }, {
            'Cache-Control': { schema: { type: 'string', const: `public, max-age=${JWKS_MAX_AGE_SECONDS}` } },
          }),
          405: problem('method not allowed'),
        },
      },
    },
    '/clients': {
      get: {
        tags: ['clients'],
        summary: 'list clients (never their secrets)',
        description:
          'An administrator bound to some solutions sees only the clients bound to a subset of them; one with `*` sees all.',
        responses: { 200: json('the clients', { type: 'array', items: { $ref: '#/components/schemas/Client' } }), ...adminErrors },
      },
      post: {
        tags: ['clients'],
        summary: 'register a client; its secret is shown in this answer only',
        description:
          'The id is generated. The caller may only grant scopes its own token has and solutions it may access. ' +
          `Bodies up to ${CLIENT_BODY_LIMIT} bytes; description up to ${MAX_CLIENT_DESCRIPTION} characters.`,
        requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/NewClient' } } } },
        responses: {
          201: json('created', { $ref: '#/components/schemas/CreatedClient' }, {
            Location: { schema: { type: 'string' }, description: '/clients/{id}' },
            'Cache-Control': { $ref: '#/components/headers/NoStore' },
          }),
          400: problem('malformed JSON or an invalid client; `errors` locate every problem by path'),
          ...adminErrors,
          403: problem('the token lacks `client:admin`, a scope it would grant, or a solution it would grant'),
          413: problem(`body over ${CLIENT_BODY_LIMIT} bytes`),
          415: problem('not `application/json`'),
        },
      },
    },
    '/clients/{id}': {
      parameters: [idParameter],
      get: {
        tags: ['clients'],
        summary: 'one client',
        responses: {
          200: json('the client', { $ref: '#/components/schemas/Client' }),
          404: problem('no such client (or one this administrator may not manage)'),
          ...adminErrors,
        },
      },
      delete: {
        tags: ['clients'],
        summary: 'remove a client; it gets no new tokens at once, and the tokens it holds are revoked (pap and pdp refuse them within about a second)',
        responses: { 200: json('`true` when it existed and is gone, else `false`', { type: 'boolean' }), ...adminErrors },
      },
    },
    '/clients/{id}/secret': {
      parameters: [idParameter],
      post: {
        tags: ['clients'],
        summary: 'rotate the secret: a new one replaces the old at once',
        description:
          'An optional JSON body `{"revoke_tokens": true}` also revokes every token issued to the client so far (for a ' +
          'leaked secret); without it, tokens issued before stay valid until they expire.',
        requestBody: {
          required: false,
          content: {
            'application/json': {
              schema: { type: 'object', properties: { revoke_tokens: { type: 'boolean', default: false } }, additionalProperties: false },
            },
          },
        },
        responses: {
          200: json('the new secret, shown this once', { $ref: '#/components/schemas/RotatedSecret' }, {
            'Cache-Control': { $ref: '#/components/headers/NoStore' },
          }),
          400: problem('the options are not valid (`revoke_tokens` must be a boolean; nothing else is accepted)'),
          404: problem('no such client (or one this administrator may not manage)'),
          ...adminErrors,
          413: problem('options over 1024 bytes'),
          415: problem('a body that is not `application/json`'),
        },
      },
    },
    '/health/live': health('liveness', '`{"status": "live"}` while the process runs'),
    '/health/ready': {
      get: {
        tags: ['operations'],
        summary: 'readiness: the database answers and a signing key is loaded',
        security: [],
        responses: {
          200: json('ready', { $ref: '#/components/schemas/Readiness' }),
          503: json('not ready', { $ref: '#/components/schemas/Readiness' }),
        },
      },
    },
    '/metrics': {
      get: {
        tags: ['operations'],
        summary: 'Prometheus metrics (text exposition format)',
        security: [],
        responses: { 200: { description: 'metrics', content: { 'text/plain': { schema: { type: 'string' } } } } },
      },
    },
    '/openapi.json': health('this document', 'OpenAPI 3.1'),
    '/docs': {
      get: {
        tags: ['operations'],
        summary: 'human-readable API documentation',
        security: [],
        responses: { 200: { description: 'HTML', content: { 'text/html': { schema: { type: 'string' } } } } },
      },
    },
  },
  components: {
    securitySchemes: {
      bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'an access token with `client:admin`' },
      basic: { type: 'http', scheme: 'basic', description: 'client id and secret, each form-urlencoded first' },
    },
    headers: {
      NoStore: { schema: { type: 'string', const: 'no-store' } },
    },
    schemas: {
      TokenResponse: {
        type: 'object',
        required: ['access_token', 'token_type', 'expires_in', 'scope'],
        properties: {
          access_token: { type: 'string' },
          token_type: { type: 'string', const: 'Bearer' },
          expires_in: { type: 'integer', const: TOKEN_LIFETIME_SECONDS },
          scope: { type: 'string', examples: ['event:decide policy:read'] },
        },
      },
      OAuthError: {
        type: 'object',
        required: ['error', 'error_description'],
        properties: {
          error: {
            type: 'string',
            enum: ['invalid_request', 'invalid_client', 'unsupported_grant_type', 'invalid_scope', 'too_many_requests', 'server_error', 'temporarily_unavailable'],
          },
          error_description: { type: 'string' },
        },
      },
      Revocations: {
        type: 'object',
        required: ['revocations'],
        properties: {
          revocations: {
            type: 'array',
            items: {
              type: 'object',
              required: ['type', 'id', 'expires_at'],
              properties: {
                type: { enum: ['sub', 'jti'] },
                id: { type: 'string', description: 'SHA-256 (base64url) of the client id or token id' },
                not_after: { type: 'integer', description: '`sub` only: tokens issued at or before (seconds) are revoked' },
                expires_at: { type: 'integer', description: 'seconds; no token it covers is valid after it' },
              },
            },
          },
        },
      },
      Jwks: {
        type: 'object',
        required: ['keys'],
        properties: {
          keys: {
            type: 'array',
            items: {
              type: 'object',
              required: ['kty', 'kid', 'alg', 'use'],
              properties: {
                kty: { type: 'string', const: 'EC' },
                crv: { type: 'string', const: 'P-256' },
                x: { type: 'string' },
                y: { type: 'string' },
                kid: { type: 'string', description: 'RFC 7638 thumbprint of the key' },
                alg: { type: 'string', const: TOKEN_ALGORITHM },
                use: { type: 'string', const: 'sig' },
              },
            },
          },
        },
      },
      NewClient: createClientSchema,
      Client: {
        type: 'object',
        required: ['client_id', 'solutions', 'scopes', 'description', 'created_at', 'updated_at'],
        properties: {
          client_id: { type: 'string' },
          solutions: { type: 'array', items: { type: 'string' } },
          scopes: { type: 'array', items: { type: 'string', enum: [...ALL_SCOPES] } },
          description: { type: 'string' },
          created_at: { type: 'string', format: 'date-time' },
          updated_at: { type: 'string', format: 'date-time' },
        },
      },
      CreatedClient: {
        allOf: [
          { $ref: '#/components/schemas/Client' },
          { type: 'object', required: ['client_secret'], properties: { client_secret: { type: 'string' } } },
        ],
      },
      RotatedSecret: {
        type: 'object',
        required: ['client_id', 'client_secret'],
        properties: { client_id: { type: 'string' }, client_secret: { type: 'string' } },
      },
      Readiness: {
        type: 'object',
        required: ['ready'],
        properties: { ready: { type: 'boolean' }, database: { type: 'boolean' }, signingKey: { type: 'boolean' } },
      },
      Problem: problemSchema,
    },
  },
} as const;
