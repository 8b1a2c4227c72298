import type { Request, Response } from 'express';
import { ERROR_CODES, type ProblemError } from '@custos/contracts';
import { HttpProblem, problems } from '../http/problem';
import { readFormBody, readJsonBody, readXmlBody } from '../http/middleware';
import { compileValidator } from '../http/validation';
import type { BodySpec, ParamSpec, ParamSpecs } from './route';

type Where = 'path' | 'query';

/** The 400 of a parameter without a problem of its own: which one, and what is wrong with it. */
const invalidParam = (where: Where, name: string, errors: ProblemError[]) =>
  problems.badRequest(ERROR_CODES.invalidRequest, `the ${where === 'path' ? 'path' : 'query'} parameter \`${name}\` is not valid`, errors);

/** ajv's findings about one parameter, located at the parameter's name. */
function errorsOf(run: () => void, name: string): ProblemError[] {
  try {
    run();
    return [];
  } catch (error) {
    if (!(error instanceof HttpProblem)) throw error;
    return (error.errors ?? []).map((found) => ({ ...found, path: name }));
  }
}

/** Checks every declared parameter of one kind, in declaration order, and returns what the handler gets. */
export function paramsReader(where: Where, specs: ParamSpecs | undefined) {
  const checks = Object.entries(specs ?? {}).map(([name, spec]) => ({ name, spec, validator: compileValidator<unknown>(spec.schema) }));
  return (req: Request, res: Response): Record<string, unknown> => {
    const values: Record<string, unknown> = {};
    for (const { name, spec, validator } of checks) {
      const raw: unknown = where === 'path' ? req.params[name] : (req.query as Record<string, unknown>)[name];
      if (raw === undefined && (where === 'query' && spec.required !== true)) continue;
      values[name] = checkedParam(where, name, spec, validator, raw, res);
    }
    return values;
  };
}

function checkedParam(
  where: Where,
  name: string,
  spec: ParamSpec,
  validator: ReturnType<typeof compileValidator<unknown>>,
  raw: unknown,
  res: Response,
): unknown {
  const value = typeof raw === 'string' && spec.normalize ? spec.normalize(raw) : raw;
  if (!validator(value)) {
    const errors = errorsOf(() => validator.assert(value, ERROR_CODES.invalidRequest, ''), name);
    const text = typeof raw === 'string' ? raw : Array.isArray(raw) ? raw.join(',') : '';
    throw spec.invalid ? spec.invalid(text, errors) : invalidParam(where, name, errors);
  }
  return spec.parse ? spec.parse(value as string, res) : value;
}

/** A request that carries no body at all: no type, no length, not chunked. */
const bodyless = (req: Request): boolean => {
  const declared = req.headers['content-length'];
  return req.headers['content-type'] === undefined && (declared === undefined || declared === '0') && req.headers['transfer-encoding'] === undefined;
};

/** Reads the body a route declares (media type, size, syntax) and checks it; undefined for a route without one. */
export function bodyReader(spec: BodySpec | undefined): (req: Request) => Promise<unknown> {
  if (spec === undefined) return () => Promise.resolve(undefined);
  switch (spec.media) {
    case 'xml':
      return async (req) => (req.body = await readXmlBody(req, spec.limit));
    case 'form':
      return async (req) => (req.body = await readFormBody(req, spec.limit));
    case 'json': {
      const validator = spec.parse ? undefined : compileValidator<unknown>(spec.schema);
      const { code, detail } = spec.invalid ?? { code: ERROR_CODES.invalidRequest, detail: 'the body is not valid' };
      return async (req) => {
        if (spec.optional === true && bodyless(req)) return undefined;
        const body = await readJsonBody(req, spec.limit);
        req.body = body;
        if (spec.parse) return spec.parse(body);
        validator?.assert(body, code, detail);
        return body;
      };
    }
  }
}
