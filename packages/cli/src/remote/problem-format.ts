import type { HttpAnswer } from './http-client';
import { jsonOf } from './http-client';

interface LocatedError {
  message: string;
  line?: number;
  column?: number;
  path?: string;
}

interface ProblemBody {
  title?: string;
  status?: number;
  detail?: string;
  code?: string;
  errors?: LocatedError[];
}

function problemOf(value: unknown): ProblemBody | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const v = value as Record<string, unknown>;
  if (typeof v.title !== 'string' && typeof v.detail !== 'string') return undefined;
  const errors = Array.isArray(v.errors)
    ? v.errors.filter((e): e is LocatedError => typeof e === 'object' && e !== null && typeof (e as LocatedError).message === 'string')
    : undefined;
  return {
    title: typeof v.title === 'string' ? v.title : undefined,
    status: typeof v.status === 'number' ? v.status : undefined,
    detail: typeof v.detail === 'string' ? v.detail : undefined,
    code: typeof v.code === 'string' ? v.code : undefined,
    errors,
  };
}

const located = (file: string, e: LocatedError) =>
  `${file}:${e.line ?? ''}${e.line !== undefined && e.column !== undefined ? `:${e.column}` : ''}: ${e.message}`;

/**
 * How a refusal reads to a policy author: when the server located a problem in the file the user sent, one
 * `file:line:column: message` line per problem, as compilers print them; otherwise the problem's detail (or title)
 * with its status and code, then each error with the path it concerns.
 */
export function formatRefusal(service: string, answer: HttpAnswer, sentFile?: string): string[] {
  const problem = problemOf(jsonOf(answer));
  if (!problem) {
    const text = answer.text.trim().split('\n')[0]?.slice(0, 200) ?? '';
    return [`${service} answered ${answer.status}${text === '' ? '' : `: ${text}`}`];
  }
  const errors = problem.errors ?? [];
  if (sentFile !== undefined && errors.some((e) => e.line !== undefined)) {
    return errors.map((e) => (e.line !== undefined ? located(sentFile, e) : `${sentFile}: ${e.path ? `${e.path}: ` : ''}${e.message}`));
  }
  const status = problem.status ?? answer.status;
  const what = problem.detail ?? problem.title ?? 'refused';
  const lines = [`${service}: ${what} (${status}${problem.code ? ` ${problem.code}` : ''})`];
  for (const e of errors) lines.push(`  ${e.path ? `${e.path}: ` : ''}${e.message}`);
  if (answer.status === 401) lines.push('the token was not accepted; run `custos login` again');
  return lines;
}
