import express, { type Express, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { ERROR_CODES } from '@custos/contracts';
import type { Logger } from '../observability/logger';
import type { ServiceMetrics } from '../observability/metrics';
import { uuidv7 } from '../ids';
import { isDatabaseUnavailable } from '../db/unavailable';
import { HttpProblem, problems, writeProblem } from './problem';
import { mountDocs } from './docs';

export interface ReadinessReport {
  ready: boolean;
  [detail: string]: unknown;
}

export interface ServiceAppOptions {
  service: string;
  logger: Logger;
  metrics: ServiceMetrics;
  openapi: object;
  readiness: () => ReadinessReport | Promise<ReadinessReport>;
}

type Method = 'get' | 'post' | 'put' | 'delete';
export type RouteHandlers = Partial<Record<Method, RequestHandler | RequestHandler[]>>;

export interface ServiceApp {
  app: Express;
  /** Registers the handlers of one path; other methods get 405 with `Allow`. */
  route(path: string, handlers: RouteHandlers): void;
  /** Adds the 404 and error handlers; call after the last route. */
  finish(): Express;
}

const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function requestIdOf(header: string | string[] | undefined): string {
  return typeof header === 'string' && SAFE_REQUEST_ID.test(header) ? header : uuidv7();
}

export function createServiceApp(options: ServiceAppOptions): ServiceApp {
  const { logger, metrics } = options;
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');

  app.use((req: Request, res: Response, next: NextFunction) => {
    const requestId = requestIdOf(req.headers['x-request-id']);
    res.locals.requestId = requestId;
    res.setHeader('X-Request-Id', requestId);
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const route = (req.route?.path as string | undefined) ?? 'unmatched';
      metrics.httpRequests.inc({ method: req.method, route, status: String(res.statusCode) });
      metrics.httpDuration.observe({ method: req.method, route }, seconds);
      logger.info(
        { requestId, method: req.method, path: req.path, status: res.statusCode, ms: Math.round(seconds * 1e4) / 10 },
        'request',
      );
    });
    next();
  });

  const route = (path: string, handlers: RouteHandlers) => {
    const allow: string[] = [];
    for (const [method, handler] of Object.entries(handlers) as Array<[Method, RequestHandler | RequestHandler[]]>) {
      app[method](path, ...(Array.isArray(handler) ? handler : [handler]));
      allow.push(method.toUpperCase());
      if (method === 'get') allow.push('HEAD');
    }
    app.all(path, (req: Request, res: Response) => {
      if (req.method === 'OPTIONS') {
        res.setHeader('Allow', [...allow, 'OPTIONS'].join(', '));
        res.status(204).end();
        return;
      }
      throw problems.methodNotAllowed(req.method, allow);
    });
  };

  route('/health/live', { get: (_req, res) => void res.json({ status: 'live' }) });
  route('/health/ready', {
    get: async (_req, res) => {
      const report = await options.readiness();
      res.status(report.ready ? 200 : 503).json(report);
    },
  });
  route('/metrics', {
    get: async (_req, res) => {
      res.setHeader('Content-Type', metrics.registry.contentType);
      res.send(await metrics.registry.metrics());
    },
  });
  route('/openapi.json', { get: (_req, res) => void res.json(options.openapi) });
  mountDocs(app, route, options.openapi);

  const finish = () => {
    app.use((req: Request) => {
      throw new HttpProblem(404, ERROR_CODES.notFound, `no route for \`${req.method} ${req.path}\``);
    });
    app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
      writeProblem(res, toProblem(error, logger, res.locals.requestId as string | undefined, req));
    });
    return app;
  };

  return { app, route, finish };
}

/** What a client is told to wait before trying again while the database is out of reach (`Retry-After`, seconds). */
export const DATABASE_RETRY_AFTER_SECONDS = 1;

/**
 * Known problems pass through; a database out of reach is 503 `service_unavailable` with `Retry-After` (the request
 * failed inside its transaction, so nothing of it was stored); anything else is a bug, logged in full and answered
 * without detail.
 */
export function toProblem(error: unknown, logger: Logger, requestId: string | undefined, req?: Request): HttpProblem {
  if (error instanceof HttpProblem) return error;
  const status = (error as { status?: unknown; type?: unknown })?.status;
  // express's own URL decoding failures and aborted uploads are the client's doing.
  if (status === 400 && (error as { type?: unknown }).type === undefined && error instanceof URIError) {
    return problems.badRequest(ERROR_CODES.invalidRequest, 'the URL is not validly percent-encoded');
  }
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return new HttpProblem(status, ERROR_CODES.invalidRequest, 'the request could not be read');
  }
  if (isDatabaseUnavailable(error)) {
    logger.warn({ err: error, requestId, method: req?.method, path: req?.path }, 'database unavailable');
    return problems.serviceUnavailable(
      ERROR_CODES.serviceUnavailable,
      'the database cannot be reached right now; try again shortly',
      DATABASE_RETRY_AFTER_SECONDS,
    );
  }
  logger.error({ err: error, requestId, method: req?.method, path: req?.path }, 'unhandled error');
  return new HttpProblem(500, ERROR_CODES.internal, 'an internal error occurred; it has been logged');
}
