import { PROBLEM_CONTENT_TYPE, problemType, type Event } from '@custos/contracts';
import type { CustosClient, EnforceOptions, Enforcement } from './client';
import { CustosError, DecisionDeniedError, TooManyRequestsError } from './errors';

/** What the middleware needs of a response: node:http's ServerResponse and express's both have it. */
export interface MiddlewareResponse {
  statusCode: number;
  headersSent?: boolean;
  setHeader(name: string, value: string | number): unknown;
  end(body?: string): unknown;
}

export type NextFunction = (error?: unknown) => void;

export interface MiddlewareOptions<Req> {
  /** Builds the event to decide from the request (see `event()`); what it throws goes to `next(error)`. */
  event: (req: Req) => Event | Promise<Event>;
  /** Where the enforcement lands on the request (default `custos`): `req.custos.event` is the modified event. */
  property?: string;
  /** Options for each `enforce`, e.g. `applyDelay`. */
  enforce?: EnforceOptions;
  /** Told about every refusal (403, 429) and failure (503), for logs; what it throws is ignored. */
  onError?: (error: CustosError, req: Req) => void;
  /**
   * Makes the answer to a denied request (status, headers, body) from the denial, whose `decision` holds the id and
   * the delay; `deniedAnswer` when absent. What it throws goes to `next(error)`.
   */
  onDenied?: (denial: DecisionDeniedError, req: Req) => DeniedAnswer | Promise<DeniedAnswer>;
}

/** What the middleware answers a denied request with. */
export interface DeniedAnswer {
  status: number;
  /** Set as given; `Content-Type` is `application/problem+json` unless set here. */
  headers?: Record<string, string | number>;
  /** Sent as JSON; nothing when absent. */
  body?: unknown;
}

/**
 * The default answer to a denial. A denial with a delay is a rate limit's (policy-language.md: an inhibiting delay
 * is how long to wait before trying again): 429 with `Retry-After` in whole seconds, rounded up so the client never
 * comes back early. Any other denial is 403. Both are problem details naming the decision (`instance`), so the
 * refusal can be found in the decision log.
 */
export function deniedAnswer(denial: DecisionDeniedError): DeniedAnswer {
  const { decision } = denial;
  const instance = decision.id.identifier;
  if (decision.delay > 0) {
    const seconds = Math.max(1, Math.ceil(decision.delay / 1000));
    return {
      status: 429,
      headers: { 'Retry-After': String(seconds) },
      body: {
        type: problemType('rate_limited'),
        title: 'Too Many Requests',
        status: 429,
        detail: `the request is not allowed now; retry after ${seconds} s`,
        code: 'rate_limited',
        instance,
        retry_after_ms: decision.delay,
      },
    };
  }
  return {
    status: 403,
    body: { type: problemType('event_inhibited'), title: 'Forbidden', status: 403, detail: 'the request is not allowed by policy', code: 'event_inhibited', instance },
  };
}

/** The request after the middleware let it through, with the default property. */
export interface RequestWithCustos {
  custos: Enforcement;
}

/**
 * Express-style middleware (typed structurally; express is not needed at run time): builds an event from the
 * request, enforces it, puts the enforcement on the request and calls `next()`. A denial is answered by `onDenied`
 * (by default 403, or 429 with `Retry-After` when the decision carries a delay) and any other failure 503 (with
 * `Retry-After` when Custos said when to come back), as problem details; the request never reaches the handler.
 */
export function custosMiddleware<Req extends object>(client: CustosClient, options: MiddlewareOptions<Req>) {
  const property = options.property ?? 'custos';
  if (typeof options.event !== 'function') throw new TypeError('option `event` must be a function that builds the event');
  if (typeof property !== 'string' || property === '') throw new TypeError('option `property` must be a non-empty string');
  if (options.onDenied !== undefined && typeof options.onDenied !== 'function') throw new TypeError('option `onDenied` must be a function');
  const onDenied = options.onDenied ?? deniedAnswer;

  return async (req: Req, res: MiddlewareResponse, next: NextFunction): Promise<void> => {
    let event: Event;
    try {
      event = await options.event(req);
    } catch (error) {
      next(error);
      return;
    }
    let enforcement: Enforcement;
    try {
      enforcement = await client.enforce(event, options.enforce);
    } catch (error) {
      if (!(error instanceof CustosError)) {
        next(error);
        return;
      }
      try {
        options.onError?.(error, req);
      } catch {
        // logging must not change the answer
      }
      if (error instanceof DecisionDeniedError) {
        let denied: DeniedAnswer;
        try {
          denied = await onDenied(error, req);
        } catch (failure) {
          next(failure);
          return;
        }
        send(res, denied);
        return;
      }
      unavailable(res, error instanceof TooManyRequestsError ? error.retryAfterMs : undefined);
      return;
    }
    Object.defineProperty(req, property, { value: enforcement, writable: true, enumerable: true, configurable: true });
    next();
  };
}

/**
 * 503 when Custos could not be asked or its decision not carried out; no internals leak. When Custos refused for
 * now and said until when (a 429 of the pdp's admission or of the token endpoint), the 503 carries that as
 * `Retry-After` (whole seconds, rounded up): the caller did nothing wrong, this service is what is short of
 * decisions (so not a 429, which would blame the caller's rate), and it learns when trying again makes sense.
 */
function unavailable(res: MiddlewareResponse, retryAfterMs: number | undefined): void {
  const body = {
    type: problemType('decision_unavailable'),
    title: 'Service Unavailable',
    status: 503,
    detail: 'the request cannot be authorized right now',
    code: 'decision_unavailable',
  };
  if (retryAfterMs === undefined) {
    send(res, { status: 503, body });
    return;
  }
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  send(res, {
    status: 503,
    headers: { 'Retry-After': String(seconds) },
    body: { ...body, detail: `${body.detail}; retry after ${seconds} s`, retry_after_ms: retryAfterMs },
  });
}

function send(res: MiddlewareResponse, answer: DeniedAnswer): void {
  if (res.headersSent) return;
  const text = answer.body === undefined ? '' : JSON.stringify(answer.body);
  res.statusCode = answer.status;
  const headers = answer.headers ?? {};
  const named = new Set(Object.keys(headers).map((name) => name.toLowerCase()));
  if (!named.has('content-type') && text !== '') res.setHeader('Content-Type', PROBLEM_CONTENT_TYPE);
  if (!named.has('cache-control')) res.setHeader('Cache-Control', 'no-store');
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}
