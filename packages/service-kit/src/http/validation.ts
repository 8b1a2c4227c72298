import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import type { ProblemError } from '@custos/contracts';
import { problems } from './problem';

const ajv = new Ajv({ allErrors: true, strict: false, allowUnionTypes: true });

/** `/a/0/b` → `a[0].b`, the path notation of api.md §5. */
function toPath(pointer: string, extra?: string): string {
  const segments = pointer.split('/').slice(1).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (extra !== undefined) segments.push(extra);
  let path = '';
  for (const segment of segments) path += /^\d+$/.test(segment) ? `[${segment}]` : path === '' ? segment : `.${segment}`;
  return path === '' ? '(body)' : path;
}

function describe(error: ErrorObject): ProblemError {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return { path: toPath(error.instancePath, String(params.missingProperty)), message: 'is required' };
    case 'additionalProperties':
      return { path: toPath(error.instancePath, String(params.additionalProperty)), message: 'is not a known field' };
    case 'type':
      return { path: toPath(error.instancePath), message: `must be of type ${String(params.type)}` };
    case 'enum':
      return {
        path: toPath(error.instancePath),
        message: `must be one of ${(params.allowedValues as unknown[]).map((v) => `\`${String(v)}\``).join(', ')}`,
      };
    default:
      return { path: toPath(error.instancePath), message: error.message ?? 'is invalid' };
  }
}

/** A compiled validator; `assert` throws a 400 problem listing every violation with its path. */
export interface BodyValidator<T> {
  (value: unknown): value is T;
  assert(value: unknown, code: string, detail: string): asserts value is T;
  /** Every violation with its path, without throwing; empty when the value matches (a contracts `ShapeCheck`). */
  errorsOf: (value: unknown) => ProblemError[];
}

export function compileValidator<T>(schema: object): BodyValidator<T> {
  const validate: ValidateFunction = ajv.compile(schema);
  const check = ((value: unknown) => validate(value)) as BodyValidator<T>;
  const errorsOf = (value: unknown): ProblemError[] => {
    if (validate(value)) return [];
    const seen = new Set<string>();
    return (validate.errors ?? []).map(describe).filter((e) => {
      const key = `${e.path}|${e.message}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
  };
  check.errorsOf = errorsOf;
  check.assert = (value: unknown, code: string, detail: string) => {
    const errors = errorsOf(value);
    if (errors.length > 0) throw problems.badRequest(code, detail, errors);
  };
  return check;
}
