import type { ExplainedSpan } from '../api';
import type { JsonValue } from '../ast/value-types';
import type { EventHistory, HistoryFilter, HistoryQuery, TimeSpan } from '../evaluate/ports';
import type { FixedTime, TimeExpression } from '../parse/time-expression';
import { fixedTimeSpan, resolveTimeExpression, windowsOf } from '../time/spans';
import { EvaluationFailure, isFailure, traced, type EvaluateAsync, type EvaluationContext } from './evaluation';
import { drive } from './maybe';
import type { ParameterProgram } from './parameters';
import { callPort, PORT_FAILED } from './ports-call';

/** An `eventOccurrence`: which recorded events count. Filter values are evaluated against the current event. */
export interface OccurrenceProgram {
  readonly action: string;
  readonly filters: ReadonlyArray<{ readonly path: string | null; readonly parameter: ParameterProgram }>;
}

/** A `start` or `end`: a time expression, a FIRST/LAST occurrence as its reference, or both. */
export interface BoundProgram {
  readonly time: TimeExpression | null;
  readonly occurrence: { readonly program: OccurrenceProgram; readonly which: 'first' | 'last' } | null;
}

/** A `when`: `fixedTime` wins over start/end (§6). */
export interface SpanProgram {
  readonly fixedTime: FixedTime | null;
  readonly start: BoundProgram | null;
  readonly end: BoundProgram | null;
}

export interface CountSpec {
  readonly policyId: string;
  readonly occurrence: OccurrenceProgram;
  readonly span: SpanProgram;
}

export interface ContinuousSpec extends CountSpec {
  readonly intervalMs: number;
  readonly minOccurrences: number;
  readonly maxOccurrences: number;
}

/** More windows than this is an evaluation error: a policy must not make one request ask for millions of counts. */
export const MAX_WINDOWS = 10_000;

type Steps<T> = Generator<unknown, T | EvaluationFailure, unknown>;

/** `count` (§6): the number of matching recorded events in the span. */
export function countValue(spec: CountSpec): EvaluateAsync<JsonValue> {
  return (context) => drive(countSteps(spec, context));
}

/** What `count` and `continuousOccurrence` both start from: the history port, the query and the span. */
function* spanQuerySteps(
  spec: CountSpec | ContinuousSpec,
  context: EvaluationContext,
  element: 'count' | 'continuousOccurrence',
): Steps<{ history: EventHistory; query: HistoryQuery; span: TimeSpan }> {
  const ready = readyHistory(context, element);
  if (isFailure(ready)) return ready;
  const { history, now } = ready;
  const query = (yield* querySteps(spec.policyId, spec.occurrence, context)) as HistoryQuery | EvaluationFailure;
  if (isFailure(query)) return query;
  const span = (yield* spanSteps(spec, history, now, context)) as TimeSpan | EvaluationFailure;
  if (isFailure(span)) return span;
  return { history, query, span };
}

function* countSteps(spec: CountSpec, context: EvaluationContext): Steps<number> {
  const start = yield* spanQuerySteps(spec, context, 'count');
  if (isFailure(start)) return start;
  const { history, query, span } = start;
  const counts = (yield askCounts(history, query, [span])) as readonly number[] | EvaluationFailure;
  if (isFailure(counts)) return counts;
  // askCounts answers one count per span asked, or a failure.
  const [count] = counts;
  if (count === undefined) return new EvaluationFailure('the event history could not be read');
  traced(context, 'history', { element: 'count', action: query.action, span: explained(span), count });
  return count;
}

/** `continuousOccurrence` (§6): every window of the span holds between min and max matching events. */
export function continuousOccurrenceValue(spec: ContinuousSpec): EvaluateAsync<JsonValue> {
  return (context) => drive(continuousSteps(spec, context));
}

function* continuousSteps(spec: ContinuousSpec, context: EvaluationContext): Steps<boolean> {
  const start = yield* spanQuerySteps(spec, context, 'continuousOccurrence');
  if (isFailure(start)) return start;
  const { history, query, span } = start;
  const windows = windowsOf(span, spec.intervalMs, MAX_WINDOWS);
  if (windows === null) {
    return new EvaluationFailure(
      Number.isFinite(span.from)
        ? `\`continuousOccurrence\` would need more than ${MAX_WINDOWS} windows`
        : '`continuousOccurrence` needs a span with a start',
    );
  }
  const counts = windows.length === 0 ? [] : ((yield askCounts(history, query, windows)) as readonly number[] | EvaluationFailure);
  if (isFailure(counts)) return counts;
  traced(context, 'history', {
    element: 'continuousOccurrence',
    action: query.action,
    span: explained(span),
    windows: windows.map((window, index) => ({ ...explained(window), count: counts[index] ?? 0 })),
  });
  return counts.every((count) => count >= spec.minOccurrences && count <= spec.maxOccurrences);
}

function readyHistory(context: EvaluationContext, element: string): { history: EventHistory; now: number } | EvaluationFailure {
  const ports = context.request.ports;
  if (ports?.history === undefined) return new EvaluationFailure(`no event history is available for \`${element}\``);
  const now = currentTime(context);
  return isFailure(now) ? now : { history: ports.history, now };
}

/** The clock is read once per request, so every span of it agrees on now. */
function currentTime(context: EvaluationContext): number | EvaluationFailure {
  const request = context.request;
  if (request.now !== undefined) return request.now;
  const clock = request.ports?.clock;
  if (clock === undefined) return new EvaluationFailure('no clock is available for the event history');
  let now: unknown;
  try {
    now = clock.now();
  } catch {
    // A clock that throws is a failed port like any other.
    now = Number.NaN;
  }
  if (typeof now !== 'number' || !Number.isFinite(now)) return new EvaluationFailure('the clock gave no valid time');
  request.now = now;
  return now;
}

function* querySteps(policyId: string, occurrence: OccurrenceProgram, context: EvaluationContext): Steps<HistoryQuery> {
  const filters: HistoryFilter[] = [];
  for (const { path, parameter } of occurrence.filters) {
    const value = (yield parameter.value(context)) as JsonValue | EvaluationFailure;
    if (isFailure(value)) return new EvaluationFailure(`parameter \`${parameter.name}\`: ${value.message}`);
    filters.push({ name: parameter.name, path, value });
  }
  return { policyId, action: occurrence.action, filters };
}

function* spanSteps(spec: CountSpec, history: EventHistory, now: number, context: EvaluationContext): Steps<TimeSpan> {
  const { fixedTime, start, end } = spec.span;
  if (fixedTime !== null) {
    return fixedTimeSpan(fixedTime, now, context.timeZone) ?? new EvaluationFailure(`unknown time zone \`${context.timeZone}\``);
  }
  let from = -Infinity;
  let to = now + 1;
  if (start !== null) {
    const bound = (yield* boundSteps(spec.policyId, start, history, now, context)) as number | null | EvaluationFailure;
    if (isFailure(bound)) return bound;
    if (bound !== null) from = bound;
  }
  if (end !== null) {
    const bound = (yield* boundSteps(spec.policyId, end, history, now, context)) as number | null | EvaluationFailure;
    if (isFailure(bound)) return bound;
    // An end is inclusive: the span takes in the end instant itself.
    if (bound !== null) to = Math.min(bound, now) + 1;
  }
  return { from, to: Math.max(from === -Infinity ? to : from, to) };
}

/** The instant of a bound; null when its FIRST/LAST occurrence does not exist (the bound is then ignored). */
function* boundSteps(
  policyId: string,
  bound: BoundProgram,
  history: EventHistory,
  now: number,
  context: EvaluationContext,
): Steps<number | null> {
  let reference = now;
  if (bound.occurrence !== null) {
    const query = (yield* querySteps(policyId, bound.occurrence.program, context)) as HistoryQuery | EvaluationFailure;
    if (isFailure(query)) return query;
    const which = bound.occurrence.which;
    const found = (yield callPort(() => history.occurrence(query, which, now + 1))) as unknown;
    if (found === PORT_FAILED || (found !== null && (typeof found !== 'number' || !Number.isFinite(found)))) {
      return new EvaluationFailure('the event history could not be read');
    }
    traced(context, 'history', { element: 'eventOccurrence', action: query.action, mode: which, occurrence: found as number | null });
    if (found === null) return null;
    reference = found as number;
  }
  if (bound.time === null) return Math.min(reference, now);
  return resolveTimeExpression(bound.time, reference, now, context.timeZone) ?? new EvaluationFailure(`unknown time zone \`${context.timeZone}\``);
}

function askCounts(history: EventHistory, query: HistoryQuery, spans: readonly TimeSpan[]): Promise<readonly number[] | EvaluationFailure> {
  return callPort(() => history.count(query, spans)).then((counts) => {
    const valid =
      counts !== PORT_FAILED &&
      Array.isArray(counts) &&
      counts.length === spans.length &&
      counts.every((count) => typeof count === 'number' && Number.isInteger(count) && count >= 0);
    return valid ? (counts as readonly number[]) : new EvaluationFailure('the event history could not be read');
  });
}

function explained(span: TimeSpan): ExplainedSpan {
  return { from: Number.isFinite(span.from) ? span.from : null, to: span.to };
}
