import { RefusedFailure } from './failures';
import { joinUrl, jsonOf, send } from './http-client';

export interface IssuedToken {
  accessToken: string;
  expiresInSeconds: number;
  scope: string;
}

export interface ClientCredentials {
  authUrl: string;
  clientId: string;
  clientSecret: string;
  scope?: string;
}

function oauthError(status: number, body: unknown, retryAfter: string | null): string {
  const b = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  const code = typeof b.error === 'string' ? b.error : `status ${status}`;
  const description = typeof b.error_description === 'string' ? `: ${b.error_description}` : '';
  const wait = status === 429 && retryAfter ? `; try again in ${retryAfter} s` : '';
  return `login refused by auth (${code})${description}${wait}`;
}

/** OAuth 2.0 client credentials (RFC 6749 §4.4) against auth's token endpoint. */
export async function requestToken(credentials: ClientCredentials): Promise<IssuedToken> {
  const form = new URLSearchParams({
    grant_type: 'client_credentials',
    client_id: credentials.clientId,
    client_secret: credentials.clientSecret,
  });
  if (credentials.scope !== undefined) form.set('scope', credentials.scope);
  const answer = await send({
    method: 'POST',
    url: joinUrl(credentials.authUrl, '/oauth/token'),
    service: 'auth',
    contentType: 'application/x-www-form-urlencoded',
    body: form.toString(),
  });
  const body = jsonOf(answer);
  if (answer.status !== 200) throw new RefusedFailure([oauthError(answer.status, body, answer.headers.get('retry-after'))]);
  const b = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  if (typeof b.access_token !== 'string' || typeof b.expires_in !== 'number') {
    throw new RefusedFailure([`auth at ${new URL(credentials.authUrl).origin} answered without a token; is it a Custos auth service?`]);
  }
  return { accessToken: b.access_token, expiresInSeconds: b.expires_in, scope: typeof b.scope === 'string' ? b.scope : '' };
}
