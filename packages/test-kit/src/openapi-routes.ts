import { METHODS } from 'node:http';

interface RouteLayer {
  route?: { path: unknown; methods: Record<string, boolean | undefined> };
}

const EVERY_METHOD = METHODS.map((method) => method.toLowerCase());
/** The operation methods of an OpenAPI path item (its other keys are `parameters`, `summary` and the like). */
const OPERATION_METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

/** `/clients/:id` → `/clients/{id}`, the OpenAPI spelling. */
const openapiPath = (expressPath: string) => expressPath.replace(/:(\w+)/g, '{$1}');

/**
 * Every `method path` an express 5 app routes, read from its router stack. A route answering every
 * method is the 405 catch-all service-kit puts behind each path, not an operation, when another
 * route serves the same path; on its own it is listed as `* path`, so no document can match it.
 * HEAD comes with GET and is not listed. Middleware (`app.use`) is not a route and is not listed.
 */
export function servedOperations(app: unknown): string[] {
  const stack = (app as { router?: { stack?: RouteLayer[] } }).router?.stack;
  if (!Array.isArray(stack)) throw new Error('not an express 5 app: it has no `router.stack`');
  const routes = stack.flatMap((layer) => (layer.route ? [layer.route] : []));
  const served = new Set<string>();
  for (const route of routes) {
    if (typeof route.path !== 'string') throw new Error(`route path \`${String(route.path)}\` is not a string`);
    const path = openapiPath(route.path);
    const methods = Object.keys(route.methods).filter((method) => route.methods[method] === true);
    const catchAll = EVERY_METHOD.every((method) => methods.includes(method));
    if (catchAll) {
      if (!routes.some((other) => other !== route && other.path === route.path)) served.add(`* ${path}`);
      continue;
    }
    for (const method of methods) if (method !== 'head' && method !== '_all') served.add(`${method} ${path}`);
  }
  return [...served].sort();
}

/** Every `method path` an OpenAPI document describes. */
export function documentedOperations(document: { paths: object }): string[] {
  const documented: string[] = [];
  for (const [path, item] of Object.entries(document.paths) as Array<[string, object]>) {
    for (const method of Object.keys(item)) if (OPERATION_METHODS.has(method)) documented.push(`${method} ${path}`);
  }
  return documented.sort();
}
