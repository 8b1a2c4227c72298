import type { FixedTime, TimeExpression } from '../../parse/time-expression';
import type { Located, ValidJsonPath } from './located';
import type { ValidParameter } from './policy';

/** What `count` and `continuousOccurrence` look at (policy-language.md §6): which events, in which span. */
export interface ValidHistory {
  readonly occurrence: ValidOccurrence;
  readonly when: ValidWhen;
}

/** An `eventOccurrence`: the action and the filters recorded events must match. */
export interface ValidOccurrence extends Located {
  readonly action: string;
  readonly filters: readonly ValidFilter[];
}

/** A `parameter:T` of an `eventOccurrence`, with the path inside the recorded parameter it compares. */
export interface ValidFilter {
  readonly parameter: ValidParameter;
  readonly path: ValidJsonPath | null;
}

/** A `when`: a fixed span, which wins over bounds (§6), or a start and an end, each optional. */
export type ValidWhen =
  | (Located & { readonly kind: 'fixed'; readonly fixedTime: FixedTime })
  | (Located & { readonly kind: 'bounds'; readonly start: ValidBound | null; readonly end: ValidBound | null });

/** A `start` or `end`: a time expression, a FIRST/LAST occurrence as its reference, or both. */
export interface ValidBound extends Located {
  readonly time: TimeExpression | null;
  readonly occurrence: { readonly occurrence: ValidOccurrence; readonly which: 'first' | 'last' } | null;
}
