import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Route } from './route';

/**
 * The bare node:http dispatch of a table's raw routes: the request goes straight to its `serve` when method and path
 * (without the query) match one literally, without express (which costs several times a plain handler on a hot
 * path); `false` means the caller hands the request on to express, where the same routes are mounted for every
 * spelling the literal match misses (`/event/`) and for the 405s.
 */
export function fastPath<D>(routes: readonly Route<D>[], deps: D): (req: IncomingMessage, res: ServerResponse) => boolean {
  const byMethod = new Map<string, Map<string, NonNullable<Route<D>['serve']>>>();
  for (const route of routes) {
    if (!route.serve) continue;
    const method = route.method.toUpperCase();
    const paths = byMethod.get(method) ?? new Map<string, NonNullable<Route<D>['serve']>>();
    paths.set(route.path, route.serve.bind(route));
    byMethod.set(method, paths);
  }
  return (req, res) => {
    const paths = byMethod.get(req.method ?? '');
    if (paths === undefined) return false;
    const url = req.url ?? '';
    const query = url.indexOf('?');
    const serve = paths.get(query === -1 ? url : url.slice(0, query));
    if (serve === undefined) return false;
    void serve(req, res, deps);
    return true;
  };
}
