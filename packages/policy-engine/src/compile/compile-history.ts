import type { ElementNode } from '../ast/nodes';
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
import { readPositiveDuration } from '../parse/duration';
import { isFixedTime, readTimeExpression } from '../parse/time-expression';
import { fixedTimeReachMs, timeExpressionReachMs } from '../time/spans';
import { optionalAttribute, requiredAttribute, validated } from './attributes';
import { compileParameter } from './compile-parameters';
import type { CompileScope } from './scope';

/** `count` and `continuousOccurrence` (policy-language.md §6). */
export function compileCount(node: ElementNode, scope: CompileScope): CompiledExpression {
  return asyncExpression('number', countValue(countSpec(node, scope)));
}

export function compileContinuousOccurrence(node: ElementNode, scope: CompileScope): CompiledExpression {
  const minimum = optionalAttribute(node, 'minOccurrences');
  const maximum = optionalAttribute(node, 'maxOccurrences');
  return asyncExpression(
    'boolean',
    continuousOccurrenceValue({
      ...countSpec(node, scope),
      intervalMs: validated(readPositiveDuration(requiredAttribute(node, 'interval')), node),
      // Decision (§6): at least one per window unless told otherwise; no upper bound.
      minOccurrences: minimum === null ? 1 : Number(minimum),
      maxOccurrences: maximum === null ? Infinity : Number(maximum),
    }),
  );
}

function countSpec(node: ElementNode, scope: CompileScope): CountSpec {
  const occurrence = child(node, 'eventOccurrence');
  const when = child(node, 'when');
  // Recorded first so `historyActions` keeps document order; the reach is known once the span is compiled.
  scope.recordHistoryAction(requiredAttribute(occurrence, 'event'), 0);
  const span = compileSpan(when, scope);
  const program = compileOccurrence(occurrence, scope, reachOf(span));
  return { policyId: scope.policyId, occurrence: program, span };
}

function child(node: ElementNode, name: string): ElementNode {
  const found = node.children.find((candidate) => candidate.name === name);
  if (found === undefined) throw new Error(`bug: validated \`${node.name}\` lacks \`${name}\``);
  return found;
}

function compileOccurrence(node: ElementNode, scope: CompileScope, reachMs: number): OccurrenceProgram {
  const action = requiredAttribute(node, 'event');
  scope.recordHistoryAction(action, reachMs);
  const filters = node.children
    .filter((candidate) => candidate.info.family === 'parameter')
    .map((parameter) => {
      const path = optionalAttribute(parameter, 'jsonPathQuery');
      const compiled = compileParameter(parameter, scope);
      scope.recordFilter({ action, name: compiled.name, path });
      return { path, parameter: compiled };
    });
  return { action, filters };
}

function compileSpan(when: ElementNode, scope: CompileScope): SpanProgram {
  const fixedTime = optionalAttribute(when, 'fixedTime');
  if (fixedTime !== null) {
    if (!isFixedTime(fixedTime)) throw new Error(`bug: validated fixedTime \`${fixedTime}\` is unknown`);
    return { fixedTime, start: null, end: null };
  }
  const bound = (name: 'start' | 'end'): BoundProgram | null => {
    const node = when.children.find((candidate) => candidate.name === name);
    return node === undefined ? null : compileBound(node, scope);
  };
  return { fixedTime: null, start: bound('start'), end: bound('end') };
}

function compileBound(node: ElementNode, scope: CompileScope): BoundProgram {
  const timeText = optionalAttribute(node, 'time');
  const occurrence = node.children.find((candidate) => candidate.name === 'eventOccurrence');
  return {
    time: timeText === null ? null : validated(readTimeExpression(timeText), node),
    occurrence:
      occurrence === undefined
        ? null
        : {
            // A FIRST/LAST look-up searches the whole history.
            program: compileOccurrence(occurrence, scope, Infinity),
            which: requiredAttribute(occurrence, 'mode') === 'FIRST' ? 'first' : 'last',
          },
  };
}

/** How far back from now the span can reach (policy metadata for retention). */
function reachOf(span: SpanProgram): number {
  if (span.fixedTime !== null) return fixedTimeReachMs(span.fixedTime);
  const start = span.start;
  if (start === null || start.occurrence !== null || start.time === null) return Infinity;
  return timeExpressionReachMs(start.time);
}
