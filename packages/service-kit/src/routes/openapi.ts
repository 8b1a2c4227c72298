import { DOCS_PATH } from '../http/docs';
import type { BodySpec, ParamSpecs, ResponseSpec, Route } from './route';

/** The OpenAPI 3.1 document of a service: everything but `paths` is given, `paths` comes from the route table. */
export interface ServiceDocumentOptions<C extends object> {
  info: { title: string; version: string; description: string };
  /** The service's own tags; the `operations` tag follows them. */
  tags?: ReadonlyArray<{ name: string; description: string }>;
  /**
   * The description of the `operations` tag, which holds the health, metrics and documentation operations this adds
   * and the service's own routes it tags so (default: just those it adds).
   */
  operations?: string;
  /** Top-level `security`, for services whose operations mostly share one. */
  security?: readonly object[];
  components: C;
  routes: ReadonlyArray<Route<never>>;
  /** The tag of an operation that names none. */
  tagOf?: (path: string) => string;
  /** The name of the bearer scheme in `components.securitySchemes` that scoped operations require. */
  bearerScheme?: string;
  /** What `/health/ready` waits for, in the document's words. */
  readiness?: string;
}

export type PathItem = Record<string, Record<string, unknown>>;

export interface ServiceDocument<C extends object> {
  openapi: '3.1.0';
  info: ServiceDocumentOptions<C>['info'];
  servers: Array<{ url: string }>;
  tags: ReadonlyArray<{ name: string; description: string }>;
  security?: readonly object[];
  components: C;
  paths: Record<string, PathItem>;
}

export const problemResponse = (description: string, headers?: object): ResponseSpec => ({
  description,
  ...(headers ? { headers } : {}),
  content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
});

export const jsonResponse = (description: string, schema: object, headers?: object): ResponseSpec => ({
  description,
  ...(headers ? { headers } : {}),
  content: { 'application/json': { schema } },
});

const XML_CONTENT = { 'application/xml': { schema: { type: 'string' } }, 'text/xml': { schema: { type: 'string' } } };

function requestBody(body: BodySpec): object {
  const described = body.description === undefined ? {} : { description: body.description };
  switch (body.media) {
    case 'xml':
      return { required: true, ...described, content: XML_CONTENT };
    case 'form':
      return { required: true, ...described, content: { 'application/x-www-form-urlencoded': { schema: body.schema } } };
    case 'json':
      return { required: body.optional !== true, ...described, content: { 'application/json': { schema: body.documentAs ?? body.schema } } };
  }
}

function parameters(where: 'path' | 'query', specs: ParamSpecs | undefined): object[] {
  return Object.entries(specs ?? {}).map(([name, spec]) => ({
    name,
    in: where,
    required: where === 'path' || spec.required === true,
    ...(spec.description === undefined ? {} : { description: spec.description }),
    schema: spec.schema,
  }));
}

function operation(route: Route<never>, options: ServiceDocumentOptions<object>): Record<string, unknown> {
  const scheme = options.bearerScheme ?? 'bearer';
  const security = route.security ?? (route.scope === undefined ? [] : [{ [scheme]: [route.scope] }]);
  const declared = [...parameters('path', route.params), ...parameters('query', route.query), ...(route.headers ?? [])];
  return {
    ...(route.operationId === undefined ? {} : { operationId: route.operationId }),
    tags: route.tags ?? [options.tagOf?.(route.path) ?? 'default'],
    summary: route.summary,
    ...(route.description === undefined ? {} : { description: route.description }),
    security,
    ...(declared.length > 0 ? { parameters: declared } : {}),
    ...(route.body ? { requestBody: requestBody(route.body) } : route.forwardedBody ? { requestBody: route.forwardedBody } : {}),
    responses: route.responses,
  };
}

/** The security scheme of Custos' access tokens (ES256 JWTs of auth-service), in the words of the service that takes them. */
export const jwtBearerScheme = (description: string) => ({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description }) as const;

/** The operations createServiceApp serves on every service. */
function serviceOperations(readiness: string): Record<string, PathItem> {
  const operation = (summary: string, responses: object, description?: string) => ({
    get: { tags: ['operations'], summary, ...(description ? { description } : {}), security: [], responses },
  });
  return {
    '/health/live': operation('liveness', { 200: jsonResponse('the process runs: `{"status": "live"}`', { type: 'object' }) }),
    '/health/ready': operation(
      'readiness',
      { 200: jsonResponse('ready, with what was checked', { type: 'object' }), 503: jsonResponse('not ready, with what failed', { type: 'object' }) },
      readiness,
    ),
    '/metrics': operation('Prometheus metrics', { 200: { description: 'text exposition format' } }),
    '/openapi.json': operation('this document', { 200: { description: 'OpenAPI 3.1' } }),
    [DOCS_PATH]: operation('human-readable API page', { 200: { description: 'HTML' } }),
  };
}

/** The document of a route table: every route once, under its OpenAPI path, after the service's own operations. */
export function serviceDocument<C extends object>(options: ServiceDocumentOptions<C>): ServiceDocument<C> {
  const paths: Record<string, PathItem> = {};
  for (const route of options.routes) {
    const item = (paths[route.path] ??= {});
    if (item[route.method]) throw new Error(`route \`${route.method} ${route.path}\` is declared twice`);
    item[route.method] = operation(route, options);
  }
  return {
    openapi: '3.1.0',
    info: options.info,
    servers: [{ url: '/' }],
    tags: [...(options.tags ?? []), { name: 'operations', description: options.operations ?? 'health, metrics, documentation' }],
    ...(options.security ? { security: options.security } : {}),
    components: options.components,
    paths: { ...paths, ...serviceOperations(options.readiness ?? 'Ready when the service can answer.') },
  };
}
