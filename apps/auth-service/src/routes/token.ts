import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';
import { formBody, type Logger, type RouteHandlers } from '@custos/service-kit';
import { authenticateClient } from '../clients/authenticate';
import type { ClientStore } from '../clients/client-store';
import type { KeyStore } from '../keys/key-store';
import { signAccessToken, TOKEN_LIFETIME_SECONDS } from '../oauth/access-token';
import { parseAuthorization } from '../oauth/basic';
import { noStore, oauthErrors } from '../oauth/errors';
import type { Clock, FailureLimiter } from '../ratelimit/failure-limiter';

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

export interface TokenRouteDeps {
  clients: ClientStore;
  keys: KeyStore;
  /** Failed attempts per claimed client id and per source address, shared by every replica. */
  limiter: FailureLimiter;
  clock: Clock;
  logger: Logger;
  issued: () => void;
}

type Fields = Record<string, string[]>;

/** One value of a field; RFC 6749 §3.1: a repeated field is an error, an empty one counts as absent. */
function field(fields: Fields, name: string): string | undefined {
  const values = fields[name];
  if (values === undefined) return undefined;
  if (values.length > 1) throw oauthErrors.invalidRequest(`\`${name}\` is given more than once`);
  return values[0] === '' ? undefined : values[0];
}

/** Which client claims to call, and with which secret (exactly one authentication method). */
function credentialsOf(req: Request, fields: Fields): { clientId: string; clientSecret: string } {
  const formId = field(fields, 'client_id');
  const formSecret = field(fields, 'client_secret');
  const header = parseAuthorization(req.headers.authorization);
  switch (header.kind) {
    case 'unsupported':
      // RFC 6749 §5.2: an unsupported authentication method is invalid_client.
      throw oauthErrors.invalidClient();
    case 'basic':
      if (formSecret !== undefined) {
        throw oauthErrors.invalidRequest('use one client authentication method: http basic or `client_secret`, not both');
      }
      if (formId !== undefined && formId !== header.clientId) {
        throw oauthErrors.invalidRequest('`client_id` differs from the client of the basic credentials');
      }
      return header;
    case 'none':
      if (formId === undefined && formSecret === undefined) throw oauthErrors.invalidClient();
      if (formId === undefined) throw oauthErrors.invalidRequest('`client_id` is required with `client_secret`');
      if (formSecret === undefined) throw oauthErrors.invalidRequest('`client_secret` is required with `client_id`');
      return { clientId: formId, clientSecret: formSecret };
  }
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

/**
 * The limiter's key of a claimed client id or an address: digested, so any text a caller sends (NUL, lone
 * surrogates) can be stored, and the table holds no client ids.
 */
const limitKey = (kind: 'client' | 'source', value: string): string => `${kind}:${createHash('sha256').update(value, 'utf8').digest('base64url')}`;

const sourceOf = (req: Request): string => req.ip ?? req.socket.remoteAddress ?? 'unknown';

/** POST /oauth/token: client credentials grant (RFC 6749 §4.4, api.md §2.1). */
export function tokenRoute(deps: TokenRouteDeps): RouteHandlers {
  const { clients, keys, limiter, clock, logger } = deps;
  const handler = async (req: Request, res: Response): Promise<void> => {
    noStore(res);
    if (typeof req.query.client_secret !== 'undefined') {
      throw oauthErrors.invalidRequest('client credentials must not be sent in the URL');
    }
    const fields = req.body as Fields;
    const grantType = field(fields, 'grant_type');
    if (grantType === undefined) throw oauthErrors.invalidRequest('`grant_type` is required');
    if (grantType !== GRANT_TYPE) {
      throw oauthErrors.unsupportedGrantType(`only \`${GRANT_TYPE}\` is supported, not \`${grantType.slice(0, 64)}\``);
    }
    const { clientId, clientSecret } = credentialsOf(req, fields);
    const requested = requestedScopes(field(fields, 'scope'));

    // Real ids are at most 128 characters; longer claims share a bounded key.
    const clientKey = clientId.slice(0, 128);
    const source = sourceOf(req);
    const limited = [limitKey('client', clientKey), limitKey('source', source)];
    // Counted as failed until proven right, so parallel guesses cannot all pass.
    const attempt = await limiter.attempt(limited);
    if (!attempt.admitted) throw oauthErrors.tooManyRequests(attempt.retryAfterSeconds);
    const forgive = () => limiter.forgive(limited);
    let client;
    try {
      client = await authenticateClient(clients, clientId, clientSecret);
    } catch (error) {
      await forgive().catch(() => undefined); // the database failed, not the caller
      throw error;
    }
    if (!client) {
      logger.warn({ clientId: clientKey, source, requestId: res.locals.requestId }, 'client authentication failed');
      throw oauthErrors.invalidClient();
    }
    await forgive();

    let scopes = client.scopes;
    if (requested) {
      const refused = [...requested].filter((scope) => !client.scopes.includes(scope));
      if (refused.length > 0) {
        throw oauthErrors.invalidScope(`not granted to this client: ${refused.map((s) => `\`${s.slice(0, 64)}\``).join(', ')}`);
      }
      scopes = client.scopes.filter((scope) => requested.has(scope));
    }
    const accessToken = signAccessToken(await keys.currentSigningKey(), {
      clientId: client.id,
      scopes,
      solutions: client.solutions,
      nowMs: clock(),
    });
    deps.issued();
    const body: TokenResponse = { access_token: accessToken, token_type: 'Bearer', expires_in: TOKEN_LIFETIME_SECONDS, scope: scopes.join(' ') };
    res.status(200).json(body);
  };
  return { post: [formBody(TOKEN_BODY_LIMIT), handler] };
}
