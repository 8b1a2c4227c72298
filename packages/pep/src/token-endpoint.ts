import { AuthenticationError, DecisionTimeoutError, RedirectError, TooManyRequestsError, TransportError, UnexpectedStatusError, type ProblemBody } from './errors';
import { NO_REDIRECTS, refuseRedirect } from './redirects';
import { Deadline } from './deadline';
import { isJsonObject, ownValue } from './json-value';
import { admissionPauseMs, backoffMs, retryAfterMs, type ResolvedRetry, type RetryInfo } from './retry';
import type { IssuedToken } from './token-source';

export interface TokenEndpointOptions {
  authUrl: string;
  clientId: string;
  clientSecret: string;
  timeoutMs: number;
  retry: ResolvedRetry;
  onRetry: (info: RetryInfo) => void;
}

/** A token's lifetime when the endpoint does not say (RFC 6749 makes `expires_in` only recommended). */
export const DEFAULT_LIFETIME_MS = 300_000;

/**
 * OAuth client credentials (api.md §2.1). Token requests are safe to repeat (each just issues another token),
 * so transport failures and 5xx are retried with backoff; a refusal (400, 401) is final. A 429 (auth limits sign-in
 * failures per client id and address) is treated as the pdp's admission 429 is: waited out once, for the whole
 * `Retry-After`, when that ends before the deadline, else a TooManyRequestsError at once, since a shorter pause
 * would only be refused again and would count against the same limit.
 */
export async function issueToken(options: TokenEndpointOptions): Promise<IssuedToken> {
  const url = `${options.authUrl}/oauth/token`;
  const deadline = new Deadline(options.timeoutMs);
  let refusedOnce = false;
  try {
    for (let attempt = 1; ; attempt += 1) {
      let retryAfter: string | null = null;
      let failure: Error;
      let delayMs: number | undefined;
      try {
        const response = await fetch(url, {
          method: 'POST',
          headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
          body: new URLSearchParams({
            grant_type: 'client_credentials',
            client_id: options.clientId,
            client_secret: options.clientSecret,
            scope: 'event:decide',
          }),
          signal: deadline.signal,
          ...NO_REDIRECTS,
        });
        await refuseRedirect(url, response);
        const text = await response.text();
        if (response.status === 200) return readToken(text);
        if (response.status === 429) {
          const refused = tooManyRequests(url, response.headers.get('retry-after'), text);
          delayMs = refusedOnce ? undefined : admissionPauseMs(options.retry, attempt, refused.retryAfterMs, deadline.remainingMs);
          if (delayMs === undefined) throw refused;
          refusedOnce = true;
          failure = refused;
        } else {
          if (response.status < 500) throw refusal(response.status, text);
          retryAfter = response.headers.get('retry-after');
          failure = new UnexpectedStatusError(url, response.status, undefined, { cause: new Error(text.slice(0, 200)) });
        }
      } catch (error) {
        if (error === deadline.reason) throw new DecisionTimeoutError(options.timeoutMs, { cause: error });
        if (error instanceof AuthenticationError || error instanceof RedirectError || error instanceof TooManyRequestsError) throw error;
        failure = new TransportError(url, { cause: error });
      }
      if (delayMs === undefined) {
        if (attempt >= options.retry.attempts) throw failure;
        delayMs = backoffMs(options.retry, attempt, retryAfter);
      }
      options.onRetry({ operation: 'token', attempt, delayMs, error: failure });
      try {
        await deadline.sleep(delayMs);
      } catch {
        throw new DecisionTimeoutError(options.timeoutMs, { cause: failure });
      }
    }
  } finally {
    deadline.clear();
  }
}

/** The token endpoint's 429, its OAuth error body read as the problem details a pdp would send. */
function tooManyRequests(url: string, retryAfter: string | null, text: string): TooManyRequestsError {
  const { code, description } = oauthErrorOf(text);
  const problem: ProblemBody | undefined = code === undefined && description === undefined ? undefined : { status: 429, code, detail: description };
  return new TooManyRequestsError(url, retryAfterMs(retryAfter), problem, { cause: new Error(`status 429${description ? `: ${description}` : ''}`) });
}

function readToken(text: string): IssuedToken {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    throw new AuthenticationError('the token endpoint answered without JSON', 200, undefined, { cause: error });
  }
  const accessToken = isJsonObject(body) ? ownValue(body, 'access_token') : undefined;
  if (!isJsonObject(body) || typeof accessToken !== 'string' || accessToken === '') {
    throw new AuthenticationError('the token endpoint answered without an access token', 200, undefined, { cause: new TypeError('`access_token` is missing') });
  }
  const expiresIn = ownValue(body, 'expires_in');
  const lifetime = typeof expiresIn === 'number' && Number.isFinite(expiresIn) && expiresIn >= 0 ? expiresIn * 1000 : DEFAULT_LIFETIME_MS;
  return { accessToken, expiresInMs: lifetime };
}

function refusal(status: number, text: string): AuthenticationError {
  const { code, description } = oauthErrorOf(text);
  const message = `the token endpoint refused the client (${status}${code ? ` \`${code}\`` : ''})${description ? `: ${description}` : ''}`;
  return new AuthenticationError(message, status, code, { cause: new Error(text.slice(0, 200)) });
}

/** `error` and `error_description` of an OAuth error body (RFC 6749 §5.2), as far as the text has them. */
function oauthErrorOf(text: string): { code?: string; description?: string } {
  try {
    const body: unknown = JSON.parse(text);
    if (!isJsonObject(body)) return {};
    const error = ownValue(body, 'error');
    const detail = ownValue(body, 'error_description');
    return { code: typeof error === 'string' ? error : undefined, description: typeof detail === 'string' ? detail : undefined };
  } catch {
    // not an OAuth error body: the status says enough
    return {};
  }
}
