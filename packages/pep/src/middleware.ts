import { PROBLEM_CONTENT_TYPE, problemType, type Event } from '@custos/contracts';
import type { CustosClient, EnforceOptions, Enforcement } from './client';
import { CustosError, DecisionDeniedError } from './errors';

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
  /** Told about every refusal (403) and failure (503), for logs; what it throws is ignored. */
  onError?: (error: CustosError, req: Req) => void;
}

/** The request after the middleware let it through, with the default property. */
export interface RequestWithCustos {
  custos: Enforcement;
}

/**
 * Express-style middleware (typed structurally; express is not needed at run time): builds an event from the
 * request, enforces it, puts the enforcement on the request and calls `next()`. A denial answers 403 and any
 * other failure 503, both as problem details; the request never reaches the handler.
 */
export function custosMiddleware<Req extends object>(client: CustosClient, options: MiddlewareOptions<Req>) {
  const property = options.property ?? 'custos';
  if (typeof options.event !== 'function') throw new TypeError('option `event` must be a function that builds the event');
  if (typeof property !== 'string' || property === '') throw new TypeError('option `property` must be a non-empty string');

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
      answer(res, error);
      return;
    }
    Object.defineProperty(req, property, { value: enforcement, writable: true, enumerable: true, configurable: true });
    next();
  };
}

/** 403 for a denial, 503 when Custos could not be asked or its decision not carried out; no internals leak. */
function answer(res: MiddlewareResponse, error: CustosError): void {
  if (res.headersSent) return;
  const denied = error instanceof DecisionDeniedError;
  const code = denied ? 'event_inhibited' : 'decision_unavailable';
  const body = {
    type: problemType(code),
    title: denied ? 'Forbidden' : 'Service Unavailable',
    status: denied ? 403 : 503,
    detail: denied ? 'the request is not allowed by policy' : 'the request cannot be authorized right now',
    code,
    ...(denied ? { instance: error.decision.id.identifier } : {}),
  };
  const text = JSON.stringify(body);
  res.statusCode = body.status;
  res.setHeader('Content-Type', PROBLEM_CONTENT_TYPE);
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.setHeader('Cache-Control', 'no-store');
  res.end(text);
}
