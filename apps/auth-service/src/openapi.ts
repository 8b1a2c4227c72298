import {
  clientViewSchema,
  createClientSchema,
  problemSchema,
  rotatedSecretSchema,
  TOKEN_ALGORITHM,
  TOKEN_AUDIENCE,
  TOKEN_ISSUER,
} from '@custos/contracts';
import { jwtBearerScheme, serviceDocument } from '@custos/service-kit';
import { TOKEN_LIFETIME_SECONDS } from './oauth/access-token';
import { AUTH_ROUTES } from './routes/table';

/** OpenAPI 3.1 of everything auth-service serves (also rendered at /docs): its operations come from the route table. */
export const openapi = serviceDocument({
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
    { name: 'audit', description: 'auth\'s audit trail (scope `audit:read`)' },
  ],
  security: [{ bearer: [] }],
  readiness: 'Ready when the database answers and a signing key is loaded.',
  routes: AUTH_ROUTES,
  components: {
    securitySchemes: {
      bearer: jwtBearerScheme('an access token with `client:admin`'),
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
      Client: clientViewSchema,
      CreatedClient: {
        allOf: [
          { $ref: '#/components/schemas/Client' },
          { type: 'object', required: ['client_secret'], properties: { client_secret: { type: 'string' } } },
        ],
      },
      RotatedSecret: rotatedSecretSchema,
      Problem: problemSchema,
    },
  },
});
