import type { RE2JS } from 're2js';
import type { JsonValue } from '../ast/value-types';
import { deepEqual } from './deep-equal';
import type { Combine } from './strict';

/** How `regex`, `contains` and `eventHasParameter` fold the answers for their operands (policy-language.md §5). */
export const MATCH_MODES = ['ALL', 'EXACTLY_ONE', 'AT_LEAST_ONE', 'NONE'] as const;
export type MatchMode = (typeof MATCH_MODES)[number];

export function foldMatches(mode: MatchMode, matches: number, total: number): boolean {
  switch (mode) {
    case 'ALL':
      return matches === total;
    case 'EXACTLY_ONE':
      return matches === 1;
    case 'AT_LEAST_ONE':
      return matches >= 1;
    case 'NONE':
      return matches === 0;
  }
}

/** `regex`: whole-string matches of each operand, RE2 semantics (linear time). */
export function regexMatch(expression: RE2JS, mode: MatchMode): Combine {
  return (values) => {
    let matches = 0;
    for (const value of values) if (expression.matches(value as string)) matches += 1;
    return foldMatches(mode, matches, values.length);
  };
}

/** `contains`: is each operand after the first an element of the first (a list), by deep JSON equality. */
export function containsMatch(mode: MatchMode): Combine {
  return (values) => {
    const list = values[0] as JsonValue[];
    let matches = 0;
    for (let index = 1; index < values.length; index += 1) {
      const wanted = values[index];
      if (list.some((item) => deepEqual(item, wanted))) matches += 1;
    }
    return foldMatches(mode, matches, values.length - 1);
  };
}

/** `eventHasParameter`: does the event carry a top-level parameter of each name (whatever its value, null included). */
export function eventHasParameter(mode: MatchMode): Combine {
  return (values, context) => {
    let matches = 0;
    for (const name of values) if (context.event.parameters.has(name as string)) matches += 1;
    return foldMatches(mode, matches, values.length);
  };
}
