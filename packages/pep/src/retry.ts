/** How often and how patiently the SDK repeats requests that are safe to repeat. */
export interface RetryOptions {
  /** Attempts in all, the first included (default 3; 1 = never retry). */
  attempts?: number;
  /** Pause before the first retry (default 100 ms); doubled for each further one, ±20 % jitter. */
  baseDelayMs?: number;
  /** Longest pause (default 1000 ms); also caps a `Retry-After`. */
  maxDelayMs?: number;
}

export type ResolvedRetry = Required<RetryOptions>;

export const DEFAULT_RETRY: ResolvedRetry = { attempts: 3, baseDelayMs: 100, maxDelayMs: 1000 };

/** What `onRetry` is told before each pause. */
export interface RetryInfo {
  operation: 'token' | 'decision';
  /** The attempt that failed, from 1. */
  attempt: number;
  delayMs: number;
  error: unknown;
}

/** The pause after failed attempt `attempt` (from 1); a server's `Retry-After` (seconds) wins, capped. */
export function backoffMs(retry: ResolvedRetry, attempt: number, retryAfter?: string | null): number {
  const seconds = retryAfter ? Number(retryAfter) : Number.NaN;
  if (Number.isFinite(seconds) && seconds >= 0) return Math.min(seconds * 1000, retry.maxDelayMs);
  const exponential = Math.min(retry.baseDelayMs * 2 ** (attempt - 1), retry.maxDelayMs);
  return Math.round(exponential * (0.8 + Math.random() * 0.4));
}

/**
 * A `Retry-After` in milliseconds from `now`: delay-seconds or an HTTP date (RFC 9110 §10.2.3); undefined when
 * absent or unreadable. A date in the past is 0.
 */
export function retryAfterMs(header: string | null | undefined, now = Date.now()): number | undefined {
  const text = header?.trim();
  if (!text) return undefined;
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * The pause before repeating a request the pdp refused at admission (429), or undefined when it is not to be
 * repeated: the pause the pdp asked for in full (a shorter one would only be refused again, so `maxDelayMs` does
 * not cap it; without a `Retry-After`, the usual backoff), and only when it ends before the call's deadline.
 */
export function admissionPauseMs(retry: ResolvedRetry, attempt: number, retryAfter: number | undefined, remainingMs: number): number | undefined {
  if (attempt >= retry.attempts) return undefined;
  const delayMs = retryAfter ?? backoffMs(retry, attempt);
  return delayMs < remainingMs ? delayMs : undefined;
}

/** Error codes of failures that happen before a connection exists: the request cannot have been sent. */
const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

/**
 * Whether a fetch failure certainly happened before the request left this process. Only then may a `POST
 * /event` be sent again: an event the pdp received may already be in the event history, and a second copy
 * would count twice in every `count` over that action (a limit "at most 5" would be reached after 3).
 */
export function requestNeverSent(error: unknown): boolean {
  // Not `instanceof Error`: fetch's errors may come from another realm (a vm context, a test runner).
  const cause = typeof error === 'object' && error !== null && 'cause' in error ? error.cause : undefined;
  const code = typeof cause === 'object' && cause !== null && 'code' in cause ? cause.code : undefined;
  return typeof code === 'string' && NOT_SENT.has(code);
}
