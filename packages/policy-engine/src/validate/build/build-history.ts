import type { ElementNode } from '../../ast/nodes';
import type { ValidExpression } from '../../ast/valid/expressions';
import type { ValidBound, ValidHistory, ValidOccurrence, ValidWhen } from '../../ast/valid/history';
import { readPositiveDuration } from '../../parse/duration';
import { FIXED_TIMES, readTimeExpression } from '../../parse/time-expression';
import { pathOf } from './build-family';
import { buildParameter, parameterNodes } from './build-parameters';
import type { BuildScope } from './build-scope';
import { readOk, readProblem, type ReadResult } from '../../parse/read-result';
import { childNamed, oneOf, onlyChild, read, readOptional, text } from './read-node';

/** `count` and `continuousOccurrence` (policy-language.md §6). */
export function buildCount(node: ElementNode, scope: BuildScope): ValidExpression {
  return { kind: 'count', type: 'number', location: node.location, history: historyOf(node, scope) };
}

export function buildContinuousOccurrence(node: ElementNode, scope: BuildScope): ValidExpression {
  return {
    kind: 'continuousOccurrence',
    type: 'boolean',
    location: node.location,
    history: historyOf(node, scope),
    intervalMs: read(node, 'interval', readPositiveDuration),
    // Decision (§6): at least one per window unless told otherwise; no upper bound.
    minOccurrences: readOptional(node, 'minOccurrences', wholeNumber) ?? 1,
    maxOccurrences: readOptional(node, 'maxOccurrences', wholeNumber) ?? Infinity,
  };
}

/** The attributes pass checked the digits; this only turns them into a number. */
function wholeNumber(value: string): ReadResult<number> {
  const number = Number(value);
  return Number.isInteger(number) && number >= 0 ? readOk(number) : readProblem('is not a whole number');
}

function firstOrLast(value: string): ReadResult<'first' | 'last'> {
  if (value === 'FIRST') return readOk('first');
  return value === 'LAST' ? readOk('last') : readProblem('is neither `FIRST` nor `LAST`');
}

function historyOf(node: ElementNode, scope: BuildScope): ValidHistory {
  return { occurrence: occurrenceOf(onlyChild(node, 'eventOccurrence'), scope), when: whenOf(onlyChild(node, 'when'), scope) };
}

function occurrenceOf(node: ElementNode, scope: BuildScope): ValidOccurrence {
  return {
    action: text(node, 'event'),
    location: node.location,
    filters: parameterNodes(node).map((parameter) => ({ parameter: buildParameter(parameter, scope), path: pathOf(parameter) })),
  };
}

/** `fixedTime` wins over start and end (§6). */
function whenOf(node: ElementNode, scope: BuildScope): ValidWhen {
  const fixedTime = oneOf(node, 'fixedTime', FIXED_TIMES, null);
  if (fixedTime !== null) return { kind: 'fixed', location: node.location, fixedTime };
  const bound = (name: 'start' | 'end'): ValidBound | null => {
    const found = childNamed(node, name);
    return found === null ? null : boundOf(found, scope);
  };
  return { kind: 'bounds', location: node.location, start: bound('start'), end: bound('end') };
}

function boundOf(node: ElementNode, scope: BuildScope): ValidBound {
  const occurrence = childNamed(node, 'eventOccurrence');
  return {
    location: node.location,
    time: readOptional(node, 'time', readTimeExpression),
    occurrence:
      occurrence === null
        ? null
        : {
            occurrence: occurrenceOf(occurrence, scope),
            which: read(occurrence, 'mode', firstOrLast),
          },
  };
}
