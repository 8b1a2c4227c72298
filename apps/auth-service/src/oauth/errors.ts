import type { ErrorRequestHandler, Response } from 'express';
import { toProblem, type Logger } from '@custos/service-kit';

/** Error codes of the token endpoint (RFC 6749 §5.2), plus `too_many_requests` for the rate limit. */
export const OAUTH_ERRORS = {
  invalidRequest: 'invalid_request',
  invalidClient: 'invalid_client',
  unsupportedGrantType: 'unsupported_grant_type',
  invalidScope: 'invalid_scope',
  tooManyRequests: 'too_many_requests',
  serverError: 'server_error',
  temporarilyUnavailable: 'temporarily_unavailable',
} as const;

export type OAuthErrorCode = (typeof OAUTH_ERRORS)[keyof typeof OAUTH_ERRORS];

/** The body of every token endpoint error: RFC 6749 §5.2, not problem+json (api.md §5). */
export interface OAuthErrorBody {
  error: OAuthErrorCode;
  error_description: string;
}

export class OAuthError extends Error {
  constructor(
    readonly status: number,
    readonly error: OAuthErrorCode,
    readonly description: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(description);
  }
}

export const BASIC_CHALLENGE = 'Basic realm="custos"';

export const oauthErrors = {
  invalidRequest: (description: string) => new OAuthError(400, OAUTH_ERRORS.invalidRequest, description),
  unsupportedGrantType: (description: string) => new OAuthError(400, OAUTH_ERRORS.unsupportedGrantType, description),
  invalidScope: (description: string) => new OAuthError(400, OAUTH_ERRORS.invalidScope, description),
  /** One answer for every failed client authentication, so none tells more than another. */
  invalidClient: () =>
    new OAuthError(401, OAUTH_ERRORS.invalidClient, 'client authentication failed', { 'WWW-Authenticate': BASIC_CHALLENGE }),
  tooManyRequests: (retryAfterSeconds: number) =>
    new OAuthError(429, OAUTH_ERRORS.tooManyRequests, `too many failed attempts; retry in ${retryAfterSeconds} s`, {
      'Retry-After': String(retryAfterSeconds),
    }),
};

/** Token responses, good or bad, must never be cached (RFC 6749 §5.1). */
export function noStore(res: Response): void {
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Pragma', 'no-cache');
}

export function writeOAuthError(res: Response, error: OAuthError): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
  noStore(res);
  const body: OAuthErrorBody = { error: error.error, error_description: error.description };
  res.status(error.status).json(body);
}

/**
 * Error handler of the token endpoint: its own errors as they are; problems raised by shared
 * middleware (415, 413, 405, malformed form) keep their status and headers but take the OAuth
 * form with `invalid_request`; anything else is logged and answered as `server_error`.
 */
export function oauthErrorHandler(logger: Logger, observe: (code: OAuthErrorCode) => void = () => {}): ErrorRequestHandler {
  return (error: unknown, req, res, _next) => {
    let oauth: OAuthError;
    if (error instanceof OAuthError) {
      oauth = error;
    } else {
      const problem = toProblem(error, logger, res.locals.requestId as string | undefined, req);
      const code =
        problem.status === 503
          ? OAUTH_ERRORS.temporarilyUnavailable
          : problem.status >= 500
            ? OAUTH_ERRORS.serverError
            : OAUTH_ERRORS.invalidRequest;
      oauth = new OAuthError(problem.status, code, problem.detail, problem.headers);
    }
    observe(oauth.error);
    writeOAuthError(res, oauth);
  };
}
