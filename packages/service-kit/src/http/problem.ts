import type { ServerResponse } from 'node:http';
import { ERROR_CODES, PROBLEM_CONTENT_TYPE, problemType, type Problem, type ProblemError } from '@custos/contracts';

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  406: 'Not Acceptable',
  409: 'Conflict',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

/**
 * Most located errors one answer lists. A pathological input (20,000 unknown attributes, 1,000
 * repeated names) would otherwise get an answer larger than itself; the detail still says how many
 * problems there are, and the last entry says how many are not listed.
 */
export const MAX_LISTED_ERRORS = 100;

/**
 * A client-facing failure. Thrown (or passed to `next`) by handlers and turned into
 * application/problem+json by the error handler; anything else that is thrown is a bug (500).
 */
export class HttpProblem extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
    readonly errors?: ProblemError[],
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
  }

  toProblem(): Problem {
    const body: Problem = {
      type: problemType(this.code),
      title: TITLES[this.status] ?? 'Error',
      status: this.status,
      detail: this.detail,
      code: this.code,
    };
    if (this.errors && this.errors.length > 0) {
      body.errors =
        this.errors.length <= MAX_LISTED_ERRORS
          ? this.errors
          : [
              ...this.errors.slice(0, MAX_LISTED_ERRORS),
              { message: `and ${this.errors.length - MAX_LISTED_ERRORS} more problems, not listed` },
            ];
    }
    return body;
  }
}

/** The problem each response was answered with, for whoever reports on it afterwards (the audit trail). */
const answeredProblems = new WeakMap<ServerResponse, HttpProblem>();

/** The problem `res` was answered with by `writeProblem`, if any. */
export const problemOf = (res: ServerResponse): HttpProblem | undefined => answeredProblems.get(res);

export function writeProblem(res: ServerResponse, problem: HttpProblem): void {
  answeredProblems.set(res, problem);
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = JSON.stringify(problem.toProblem());
  for (const [name, value] of Object.entries(problem.headers)) res.setHeader(name, value);
  res.statusCode = problem.status;
  res.setHeader('Content-Type', PROBLEM_CONTENT_TYPE);
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}

export const problems = {
  badRequest: (code: string, detail: string, errors?: ProblemError[]) => new HttpProblem(400, code, detail, errors),
  notFound: (detail = 'no such resource') => new HttpProblem(404, ERROR_CODES.notFound, detail),
  conflict: (detail: string) => new HttpProblem(409, ERROR_CODES.conflict, detail),
  payloadTooLarge: (limit: number) =>
    new HttpProblem(413, ERROR_CODES.payloadTooLarge, `request body exceeds the limit of ${limit} bytes`),
  unsupportedMediaType: (got: string | undefined, expected: readonly string[]) =>
    new HttpProblem(
      415,
      ERROR_CODES.unsupportedMediaType,
      `content type \`${got ?? '(none)'}\` is not accepted here; send ${expected.map((t) => `\`${t}\``).join(' or ')}`,
    ),
  methodNotAllowed: (method: string, allow: readonly string[]) =>
    new HttpProblem(405, ERROR_CODES.methodNotAllowed, `method \`${method}\` is not allowed here`, undefined, {
      Allow: allow.join(', '),
    }),
  serviceUnavailable: (code: string, detail: string, retryAfterSeconds?: number) =>
    new HttpProblem(
      503,
      code,
      detail,
      undefined,
      retryAfterSeconds === undefined ? {} : { 'Retry-After': String(retryAfterSeconds) },
    ),
};
