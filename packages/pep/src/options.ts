import { AUTHZEN_PATHS } from '@custos/contracts';
import { wait } from './deadline';
import { ConfigurationError } from './errors';
import { DEFAULT_RETRY, type ResolvedRetry, type RetryInfo, type RetryOptions } from './retry';
import type { TraceHeaders } from './trace';

export interface CustosClientOptions {
  /** Base URL of a pdp replica or of the gateway in front of them; `/event` (and the other decision routes) are appended. */
  pdpUrl: string;
  /** Base URL of the auth-service; `/oauth/token` is appended. */
  authUrl: string;
  clientId: string;
  clientSecret: string;
  /** Longest time one `decide`/`enforce` may spend asking (token, request, retries), not counting the delay. Default 5000. */
  timeoutMs?: number;
  /**
   * `true` (default): every failure rejects. `false` (explicit opt-in): when Custos cannot be reached at all
   * (transport failure or timeout), `enforce` resolves with the event unchanged and `failedOpen` set.
   */
  failClosed?: boolean;
  /** Send the highest `Policy-Revision` seen so far as `Min-Policy-Revision`, so answers never go back to older policies. */
  monotonicRevisions?: boolean;
  retry?: RetryOptions;
  /** Told about each retry before its pause (for logs and metrics); what it throws is ignored. */
  onRetry?: (info: RetryInfo) => void;
  /** How a decision's delay is waited out (default: a timer), e.g. to cap, log or cancel it. */
  sleep?: (ms: number) => Promise<void>;
  /**
   * The caller's trace context for each decision request (`traceparent`, `tracestate`), so the pdp's spans join the
   * caller's trace; see `TraceHeaders`. None is sent when absent.
   */
  traceHeaders?: TraceHeaders;
}

/** Where each decision request goes: the pdp base URL with the route appended. */
export interface PdpUrls {
  event: string;
  events: string;
  evaluation: string;
  evaluations: string;
}

export interface ResolvedOptions {
  urls: PdpUrls;
  authUrl: string;
  clientId: string;
  clientSecret: string;
  timeoutMs: number;
  failClosed: boolean;
  monotonicRevisions: boolean;
  retry: ResolvedRetry;
  onRetry: (info: RetryInfo) => void;
  sleep: (ms: number) => Promise<void>;
  traceHeaders: TraceHeaders | undefined;
}

export const DEFAULT_TIMEOUT_MS = 5000;

/** Checks the options once, in the constructor, so a typo fails at start-up and not at the first request. */
export function resolveOptions(options: CustosClientOptions): ResolvedOptions {
  const given = options as Partial<CustosClientOptions> | undefined;
  if (typeof given !== 'object' || given === null) throw new ConfigurationError('options are required');
  const failClosed = given.failClosed ?? true;
  if (typeof failClosed !== 'boolean') throw new ConfigurationError('option `failClosed` must be a boolean');
  const monotonicRevisions = given.monotonicRevisions ?? false;
  if (typeof monotonicRevisions !== 'boolean') throw new ConfigurationError('option `monotonicRevisions` must be a boolean');
  const sleep = given.sleep ?? wait;
  if (typeof sleep !== 'function') throw new ConfigurationError('option `sleep` must be a function');
  const onRetry = given.onRetry ?? (() => undefined);
  if (typeof onRetry !== 'function') throw new ConfigurationError('option `onRetry` must be a function');
  const traceHeaders = given.traceHeaders;
  if (traceHeaders !== undefined && typeof traceHeaders !== 'function') throw new ConfigurationError('option `traceHeaders` must be a function');
  const pdp = baseUrl('pdpUrl', given.pdpUrl);
  return {
    urls: { event: `${pdp}/event`, events: `${pdp}/events`, evaluation: `${pdp}${AUTHZEN_PATHS.evaluation}`, evaluations: `${pdp}${AUTHZEN_PATHS.evaluations}` },
    authUrl: baseUrl('authUrl', given.authUrl),
    clientId: text('clientId', given.clientId),
    clientSecret: text('clientSecret', given.clientSecret),
    timeoutMs: positive('timeoutMs', given.timeoutMs ?? DEFAULT_TIMEOUT_MS),
    failClosed,
    monotonicRevisions,
    retry: retryOptions(given.retry),
    sleep,
    traceHeaders,
    onRetry: (info) => {
      try {
        onRetry(info);
      } catch {
        // an observer must not change what the SDK does
      }
    },
  };
}

function baseUrl(name: string, value: unknown): string {
  const url = typeof value === 'string' ? parseUrl(value) : null;
  if (url === null || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new ConfigurationError(`option \`${name}\` must be an http or https URL, got \`${String(value)}\``);
  }
  if (url.search !== '' || url.hash !== '') throw new ConfigurationError(`option \`${name}\` must not have a query or fragment`);
  return url.href.replace(/\/+$/, '');
}

function parseUrl(value: string): URL | null {
  try {
    return new URL(value);
  } catch {
    return null;
  }
}

function text(name: string, value: unknown): string {
  if (typeof value !== 'string' || value === '') throw new ConfigurationError(`option \`${name}\` must be a non-empty string`);
  return value;
}

function positive(name: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) throw new ConfigurationError(`option \`${name}\` must be a positive number of milliseconds`);
  return value;
}

function retryOptions(retry: RetryOptions | undefined): ResolvedRetry {
  const resolved = { ...DEFAULT_RETRY, ...(retry ?? {}) };
  if (!Number.isSafeInteger(resolved.attempts) || resolved.attempts < 1) throw new ConfigurationError('option `retry.attempts` must be an integer of at least 1');
  for (const name of ['baseDelayMs', 'maxDelayMs'] as const) {
    const value = resolved[name];
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) throw new ConfigurationError(`option \`retry.${name}\` must be 0 or more milliseconds`);
  }
  return resolved;
}
