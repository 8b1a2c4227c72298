import { TransportFailure, UsageFailure } from './failures';

export interface HttpRequest {
  method: string;
  url: string;
  /** Which service this is, for messages: `auth`, `pap` or `pdp`. */
  service: string;
  token?: string;
  body?: string;
  contentType?: string;
  accept?: string;
  headers?: Record<string, string>;
  /** How long to wait for the answer; REQUEST_TIMEOUT_MS unless given. */
  timeoutMs?: number;
}

export interface HttpAnswer {
  status: number;
  headers: Headers;
  text: string;
}

/** How long one request may take before the command gives up on the server. */
export const REQUEST_TIMEOUT_MS = 30_000;

const REASONS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'no such host',
  EAI_AGAIN: 'the host name could not be resolved',
  ECONNRESET: 'the connection was reset',
  EHOSTUNREACH: 'the host is unreachable',
  ETIMEDOUT: 'the connection timed out',
  UND_ERR_SOCKET: 'the connection closed unexpectedly',
};

interface ErrorLike {
  name?: unknown;
  message?: unknown;
  code?: unknown;
  cause?: unknown;
}

// Duck-typed rather than `instanceof Error`: fetch's errors may come from another realm (a test runner's sandbox).
const errorLike = (value: unknown): ErrorLike | undefined => (typeof value === 'object' && value !== null ? value : undefined);

function causeCode(error: unknown): string | undefined {
  let current = errorLike(error);
  for (let depth = 0; depth < 4 && current; depth += 1) {
    if (typeof current.code === 'string') return current.code;
    current = errorLike(current.cause);
  }
  return undefined;
}

/** One sentence for a request that got no answer. */
function transportFailure(request: HttpRequest, error: unknown): TransportFailure {
  const origin = new URL(request.url).origin;
  if (errorLike(error)?.name === 'TimeoutError') {
    return new TransportFailure(`${request.service} at ${origin} did not answer within ${(request.timeoutMs ?? REQUEST_TIMEOUT_MS) / 1000} s`);
  }
  const code = causeCode(error);
  const message = errorLike(error)?.message;
  const reason = (code ? REASONS[code] : undefined) ?? code?.toLowerCase() ?? (typeof message === 'string' ? message : String(error));
  return new TransportFailure(`cannot reach ${request.service} at ${origin}: ${reason}`);
}

/** The statuses fetch would follow (RFC 9110 §15.4); other 3xx answers are plain answers. */
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** Where a redirect points, absolute, for the message; the header as sent when it is no URL. */
function locationOf(response: Response, url: URL): string {
  const location = response.headers.get('location');
  if (location === null) return '(no Location)';
  try {
    return new URL(location, url).href;
  } catch {
    return location;
  }
}

/**
 * Every request carries a secret or a token, and following a redirect would hand it (and, after a 307 or 308, the
 * body with a client secret) to wherever the server points: redirects are refused, naming where they led.
 */
function redirectFailure(request: HttpRequest, url: URL, response: Response): UsageFailure {
  return new UsageFailure(
    `${request.service} at ${url.origin} answered ${response.status} redirecting to \`${locationOf(response, url)}\`; ` +
      'custos follows no redirects, since it would send the credentials along: use the final URL if you trust it',
  );
}

/**
 * One HTTP exchange with a bearer token when given. Any answer comes back, except a redirect (a UsageFailure);
 * no answer is a TransportFailure.
 */
export async function send(request: HttpRequest): Promise<HttpAnswer> {
  let url: URL;
  try {
    url = new URL(request.url);
  } catch {
    throw new UsageFailure(`\`${request.url}\` is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageFailure(`\`${request.url}\` is not an http or https URL`);
  }
  const headers: Record<string, string> = { ...request.headers };
  if (request.token !== undefined) headers.Authorization = `Bearer ${request.token}`;
  if (request.contentType !== undefined) headers['Content-Type'] = request.contentType;
  headers.Accept = request.accept ?? 'application/json';
  let response: Response;
  try {
    response = await fetch(url, {
      method: request.method,
      headers,
      body: request.body,
      redirect: 'manual',
      signal: AbortSignal.timeout(request.timeoutMs ?? REQUEST_TIMEOUT_MS),
    });
  } catch (error) {
    throw transportFailure(request, error);
  }
  if (REDIRECTS.has(response.status)) {
    await response.body?.cancel().catch(() => undefined);
    throw redirectFailure(request, url, response);
  }
  try {
    return { status: response.status, headers: response.headers, text: await response.text() };
  } catch (error) {
    throw transportFailure(request, error);
  }
}

/** The body as JSON, or undefined when it is not JSON. */
export function jsonOf(answer: HttpAnswer): unknown {
  try {
    return answer.text === '' ? undefined : JSON.parse(answer.text);
  } catch {
    return undefined;
  }
}

/** Joins a base URL (with or without a trailing slash) and a path. */
export function joinUrl(base: string, pathname: string): string {
  return `${base.replace(/\/+$/, '')}${pathname}`;
}
