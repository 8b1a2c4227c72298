import type { Static, TSchema } from '@sinclair/typebox';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Request, Response } from 'express';
import type { ProblemError } from '@custos/contracts';
import type { HttpProblem } from '../http/problem';

export type HttpMethod = 'get' | 'post' | 'put' | 'delete';

/** A path or query parameter: its schema (validated and documented), and what the handler gets from it. */
export interface ParamSpec {
  /** JSON Schema of the parameter's text: ajv checks it, the OpenAPI document shows it. */
  readonly schema: TSchema;
  readonly description?: string;
  /** Query parameters only: whether it must be there (path parameters always are). */
  readonly required?: boolean;
  /** Applied to the text before it is checked: case folding, or a number from its digits for an integer schema. */
  readonly normalize?: (text: string) => unknown;
  /** The problem answered when the text breaks the schema; a 400 `invalid_request` naming the parameter otherwise. */
  readonly invalid?: (text: string, errors: ProblemError[]) => HttpProblem;
  /** Turns the checked text into what the handler gets; may throw a problem (403 for a foreign solution, say). */
  readonly parse?: (text: string, res: Response) => unknown;
}

export type ParamSpecs = Readonly<Record<string, ParamSpec>>;

/** A JSON body: checked against `schema` (answering `invalid`'s code and detail) or read by `parse`. */
export interface JsonBodySpec {
  readonly media: 'json';
  readonly limit: number;
  readonly schema: TSchema;
  readonly description?: string;
  /** What the document shows in place of `schema`, e.g. a `$ref` to a components schema. */
  readonly documentAs?: object;
  /** Code and detail of the 400 when the body breaks the schema (default `invalid_request`). */
  readonly invalid?: { readonly code: string; readonly detail: string };
  /** Checks in place of the schema where one schema cannot say it all; its result is what the handler gets. */
  readonly parse?: (value: unknown) => unknown;
  /** A request without a body (no Content-Type, no length) is let through with the body undefined. */
  readonly optional?: boolean;
}

/** An XML body, handed over as text: the policy engine does the reading. */
export interface XmlBodySpec {
  readonly media: 'xml';
  readonly limit: number;
  readonly description: string;
}

/** An application/x-www-form-urlencoded body: every field with all its values (a repeated field is the route's call). */
export interface FormBodySpec {
  readonly media: 'form';
  readonly limit: number;
  /** Documentation only: form fields are read by the handler. */
  readonly schema: object;
  readonly description?: string;
}

export type BodySpec = JsonBodySpec | XmlBodySpec | FormBodySpec;

/** An OpenAPI response object, as it appears in the document. */
export type ResponseSpec = Readonly<Record<string, unknown>> & { readonly description: string };

type ParamValue<P> = P extends { parse: (...args: never[]) => infer T } ? T : P extends { schema: infer S extends TSchema } ? Static<S> : never;

export type PathValues<PS> = { [K in keyof PS]: ParamValue<PS[K]> };
export type QueryValues<QS> = { [K in keyof QS]: QS[K] extends { required: true } ? ParamValue<QS[K]> : ParamValue<QS[K]> | undefined };
export type BodyValue<B> = B extends { media: 'json' }
  ? (B extends { parse: (value: unknown) => infer T } ? T : B extends { schema: infer S extends TSchema } ? Static<S> : never) | (B extends { optional: true } ? undefined : never)
  : B extends { media: 'xml' }
    ? string
    : B extends { media: 'form' }
      ? Record<string, string[]>
      : undefined;

/** What a handler gets beside the request and response: the service's dependencies and the checked input. */
export interface RouteInput<D, P, Q, B> {
  deps: D;
  params: P;
  query: Q;
  body: B;
}

/** What the router and the OpenAPI document know of every operation, whoever reads its request. */
interface OperationSpec {
  readonly method: HttpMethod;
  /** In the OpenAPI form, `/ws/policy/{id}`; express gets `/ws/policy/:id`. */
  readonly path: string;
  readonly summary: string;
  readonly description?: string;
  readonly operationId?: string;
  readonly tags?: readonly string[];
  /** Header parameters the handler reads itself, for the document. */
  readonly headers?: readonly object[];
  /** The document's `requestBody` of a route whose handler reads the body itself (a proxy passing it on unread). */
  readonly forwardedBody?: object;
  readonly responses: Readonly<Record<number, ResponseSpec>>;
}

/** One operation of a service, as data: everything the router, the checks and the OpenAPI document need. */
export interface RouteSpec<D, PS extends ParamSpecs, QS extends ParamSpecs, B extends BodySpec | undefined> extends OperationSpec {
  /** The scope a bearer token needs; checked first (401/403), before anything of the request is read. */
  readonly scope?: string;
  /** The document's `security` of this operation; derived from `scope` when absent (none without a scope). */
  readonly security?: readonly object[];
  readonly params?: PS;
  readonly query?: QS;
  readonly body?: B;
  readonly handler: (req: Request, res: Response, input: RouteInput<D, PathValues<PS>, QueryValues<QS>, BodyValue<B>>) => unknown;
}

/** A route with its input types erased, as a table holds it. */
export interface Route<D> extends Omit<RouteSpec<D, ParamSpecs, ParamSpecs, BodySpec | undefined>, 'handler'> {
  // Methods, so that a table of any service's routes is a table of `Route<unknown>` for the document builder.
  handler(req: Request, res: Response, input: RouteInput<D, Record<string, unknown>, Record<string, unknown>, unknown>): unknown;
  /** A route answered on bare node:http (`fastPath`) as well as through express. */
  serve?(req: IncomingMessage, res: ServerResponse, deps: D): unknown;
}

/**
 * An operation whose handler does all the reading itself on bare node:http (a hot path: its own token check, body
 * budget and parser), declared for the fast dispatch, the express fallback and the document alike. Its path has no
 * parameters: the fast dispatch compares it literally.
 */
export interface RawRouteSpec<D> extends OperationSpec {
  /** The document's `security` (the handler checks the token itself). */
  readonly security: readonly object[];
  readonly serve: (req: IncomingMessage, res: ServerResponse, deps: D) => unknown;
}

/**
 * `defineRoute` for the routes of a service whose handlers get dependencies `D`: the handler's params, query and
 * body are typed from the declared schemas.
 */
export function routesFor<D>() {
  return function defineRoute<
    const PS extends ParamSpecs = Record<never, ParamSpec>,
    const QS extends ParamSpecs = Record<never, ParamSpec>,
    const B extends BodySpec | undefined = undefined,
  >(spec: RouteSpec<D, PS, QS, B>): Route<D> {
    return spec as unknown as Route<D>;
  };
}

/** `defineRawRoute` for the bare node:http routes of a service whose handlers get dependencies `D`. */
export function rawRoutesFor<D>() {
  return function defineRawRoute(spec: RawRouteSpec<D>): Route<D> {
    return { ...spec, handler: (req, res, { deps }) => spec.serve(req, res, deps) };
  };
}

/** `/ws/policy/{id}` → `/ws/policy/:id`. */
export const expressPath = (path: string): string => path.replace(/\{(\w+)\}/g, ':$1');
