import { ERROR_CODES } from '@custos/contracts';
import type { Diagnostic } from '@custos/policy-engine';
import { type HttpProblem, problems } from '@custos/service-kit';

/** A 400 `invalid_policy` listing every diagnostic of a refused policy or timer with its location. */
export function invalidDocument(kind: 'policy' | 'timer', diagnostics: readonly Diagnostic[]): HttpProblem {
  const errors = diagnostics.map((d) => ({
    message: d.message,
    ...(d.line !== undefined ? { line: d.line } : {}),
    ...(d.column !== undefined ? { column: d.column } : {}),
  }));
  const count = errors.length;
  return problems.badRequest(
    ERROR_CODES.invalidPolicy,
    count === 0 ? `the ${kind} is not valid` : `the ${kind} is not valid: ${count} problem${count === 1 ? '' : 's'}`,
    count > 0 ? errors : [{ message: `the ${kind} was rejected` }],
  );
}
