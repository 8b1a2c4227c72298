import type { Request, RequestHandler, Response } from 'express';
import type { RouteHandlers, ServiceApp } from '../http/app';
import type { Tracing } from '../tracing/tracing';
import { traceRequest } from '../tracing/http';
import { bodyReader, paramsReader } from './request-input';
import { expressPath, type Route } from './route';

export interface MountOptions<D = unknown> {
  /** The middleware that lets a request with a token carrying `scope` through (401/403 otherwise). */
  authorize?: (scope: string) => RequestHandler | RequestHandler[];
  /** Middleware run before everything else of a route (the audit trail's record of the attempt), or none. */
  before?: (route: Route<D>) => RequestHandler | undefined;
  /** When on, each request is one server span (`<method> <path template>`) continuing its `traceparent`. */
  tracing?: Tracing;
}

/**
 * What a route runs on a request, in the order a client learns of its mistakes: the token (401/403), the path
 * parameters, the query, the body (415, 413, 400), then the handler with the checked input.
 */
export function routeHandlers<D>(route: Route<D>, deps: D, options: MountOptions<D> = {}): RequestHandler[] {
  const readParams = paramsReader('path', route.params);
  const readQuery = paramsReader('query', route.query);
  const readBody = bodyReader(route.body);
  const run = async (req: Request, res: Response): Promise<void> => {
    const params = readParams(req, res);
    const query = readQuery(req, res);
    const body = await readBody(req);
    await route.handler(req, res, { deps, params, query, body });
  };
  const { tracing } = options;
  const traced: RequestHandler[] = tracing?.enabled === true ? [(req, res, next) => traceRequest(tracing, route.path, req, res, () => next())] : [];
  // The span first, so that it covers the audit record of the attempt and the guard too.
  const first = options.before?.(route);
  const leading = first === undefined ? traced : [...traced, first];
  if (route.scope === undefined) return [...leading, run];
  if (!options.authorize) throw new Error(`route \`${route.method} ${route.path}\` needs a scope but no authorize was given`);
  const guard = options.authorize(route.scope);
  return [...leading, ...(Array.isArray(guard) ? guard : [guard]), run];
}

/**
 * Registers a route table on a service app: one `service.route` per path, in the order the paths first appear
 * (so `/ws/policy/validate` listed before `/ws/policy/{id}` is matched first), every other method a 405.
 */
export function mountRoutes<D>(service: ServiceApp, routes: readonly Route<D>[], deps: D, options: MountOptions<D> = {}): void {
  const byPath = new Map<string, RouteHandlers>();
  for (const route of routes) {
    const handlers = byPath.get(route.path) ?? {};
    if (handlers[route.method]) throw new Error(`route \`${route.method} ${route.path}\` is declared twice`);
    handlers[route.method] = routeHandlers(route, deps, options);
    byPath.set(route.path, handlers);
  }
  for (const [path, handlers] of byPath) service.route(expressPath(path), handlers);
}
