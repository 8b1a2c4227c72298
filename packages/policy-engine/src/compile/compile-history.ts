import type { ContinuousOccurrenceNode, CountNode } from '../ast/valid/expressions';
import type { ValidBound, ValidHistory, ValidOccurrence, ValidWhen } from '../ast/valid/history';
import type { CompiledExpression } from '../functions/evaluation';
import { asyncExpression } from '../functions/evaluation';
import {
  continuousOccurrenceValue,
  countValue,
  type BoundProgram,
  type CountSpec,
  type OccurrenceProgram,
  type SpanProgram,
} from '../functions/history';
import { fixedTimeReachMs, timeExpressionReachMs } from '../time/spans';
import { compileParameter } from './compile-parameters';
import type { CompileScope } from './scope';

/** `count` and `continuousOccurrence` (policy-language.md §6). */
export function compileCount(count: CountNode, scope: CompileScope): CompiledExpression {
  return asyncExpression('number', countValue(countSpec(count.history, scope)));
}

export function compileContinuousOccurrence(continuous: ContinuousOccurrenceNode, scope: CompileScope): CompiledExpression {
  const { intervalMs, minOccurrences, maxOccurrences } = continuous;
  return asyncExpression(
    'boolean',
    continuousOccurrenceValue({ ...countSpec(continuous.history, scope), intervalMs, minOccurrences, maxOccurrences }),
  );
}

function countSpec(history: ValidHistory, scope: CompileScope): CountSpec {
  // Recorded first so `historyActions` keeps document order; the reach is known once the span is compiled.
  scope.recordHistoryAction(history.occurrence.action, 0);
  const span = compileSpan(history.when, scope);
  const program = compileOccurrence(history.occurrence, scope, reachOf(span));
  return { policyId: scope.policyId, occurrence: program, span };
}

function compileOccurrence(occurrence: ValidOccurrence, scope: CompileScope, reachMs: number): OccurrenceProgram {
  const { action } = occurrence;
  scope.recordHistoryAction(action, reachMs);
  const filters = occurrence.filters.map((filter) => {
    const path = filter.path?.text ?? null;
    const compiled = compileParameter(filter.parameter, scope);
    scope.recordFilter({ action, name: compiled.name, path });
    return { path, parameter: compiled };
  });
  return { action, filters };
}

function compileSpan(when: ValidWhen, scope: CompileScope): SpanProgram {
  if (when.kind === 'fixed') return { fixedTime: when.fixedTime, start: null, end: null };
  const bound = (valid: ValidBound | null): BoundProgram | null => (valid === null ? null : compileBound(valid, scope));
  return { fixedTime: null, start: bound(when.start), end: bound(when.end) };
}

function compileBound(bound: ValidBound, scope: CompileScope): BoundProgram {
  const reference = bound.occurrence;
  return {
    time: bound.time,
    // A FIRST/LAST look-up searches the whole history.
    occurrence: reference === null ? null : { program: compileOccurrence(reference.occurrence, scope, Infinity), which: reference.which },
  };
}

/** How far back from now the span can reach (policy metadata for retention). */
function reachOf(span: SpanProgram): number {
  if (span.fixedTime !== null) return fixedTimeReachMs(span.fixedTime);
  const start = span.start;
  if (start === null || start.occurrence !== null || start.time === null) return Infinity;
  return timeExpressionReachMs(start.time);
}
