import type { Request, Response } from 'express';
import type { Logger } from '@custos/service-kit';
import { authenticateClient } from '../clients/authenticate';
import type { ClientRecord, ClientStore } from '../clients/client-store';
import type { SignInGuard } from '../ratelimit/sign-in-guard';
import { failureSourceOf } from '../ratelimit/source-address';
import { parseAuthorization } from './basic';
import { oauthErrors } from './errors';

/** A urlencoded form as formBody parses it: every value of every field. */
export type Fields = Record<string, string[]>;

/** One value of a field; RFC 6749 §3.1: a repeated field is an error, an empty one counts as absent. */
export function field(fields: Fields, name: string): string | undefined {
  const values = fields[name];
  if (values === undefined) return undefined;
  if (values.length > 1) throw oauthErrors.invalidRequest(`\`${name}\` is given more than once`);
  return values[0] === '' ? undefined : values[0];
}

/** Credentials in the query string end up in logs and histories: refused before anything else is read. */
export function refuseCredentialsInUrl(req: Request): void {
  if (typeof req.query.client_secret !== 'undefined') {
    throw oauthErrors.invalidRequest('client credentials must not be sent in the URL');
  }
}

/** Which client claims to call, and with which secret (exactly one authentication method). */
export function credentialsOf(req: Request, fields: Fields): { clientId: string; clientSecret: string } {
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

/** The caller's address as `AUTH_TRUST_PROXY` lets auth believe it, in the form failures count against. */
const sourceOf = (req: Request): string => failureSourceOf(req.ip ?? req.socket.remoteAddress ?? 'unknown');

export interface ClientAuthDeps {
  clients: ClientStore;
  /** Failed attempts per client id and address, per address, and per client id, shared by every replica. */
  guard: SignInGuard;
  logger: Logger;
}

/**
 * The calling client, authenticated by its credentials (RFC 6749 §2.3.1) under the failure limits: 429 while
 * this client id from this address, or this address, has failed too often, else 401 for wrong credentials.
 */
export async function authenticateCaller(
  req: Request,
  res: Response,
  { clientId, clientSecret }: { clientId: string; clientSecret: string },
  deps: ClientAuthDeps,
): Promise<ClientRecord> {
  const source = sourceOf(req);
  const admission = await deps.guard.admit(clientId, source);
  if (!admission.admitted) throw oauthErrors.tooManyRequests(admission.retryAfterSeconds);
  let client;
  try {
    client = await authenticateClient(deps.clients, clientId, clientSecret);
  } catch (error) {
    await deps.guard.forgive(admission).catch(() => undefined); // the database failed, not the caller
    throw error;
  }
  if (!client) {
    deps.logger.warn({ clientId: clientId.slice(0, 128), source, requestId: res.locals.requestId }, 'client authentication failed');
    throw oauthErrors.invalidClient();
  }
  await deps.guard.forgive(admission);
  return client;
}
