import type { Comparison } from '../parse/calendar';
import { wallClockOf, type WallClock } from '../time/zoned';
import { EvaluationFailure, type Evaluate, type EvaluationContext } from './evaluation';

/**
 * `date`, `time`, `day` (policy-language.md §5): the event's timestamp read on the wall clock of the decision's zone
 * (`POLICY_TIMEZONE`). The last conversion is remembered, since the functions of one request ask for the same one.
 */
let lastZone = '';
let lastInstant = Number.NaN;
let lastWall: WallClock | null = null;

function eventWallClock(context: EvaluationContext): WallClock | EvaluationFailure {
  const { timestamp } = context.event;
  if (timestamp === lastInstant && context.timeZone === lastZone && lastWall !== null) return lastWall;
  if (!Number.isFinite(timestamp)) return new EvaluationFailure('the event has no valid timestamp');
  const wall = wallClockOf(timestamp, context.timeZone);
  if (wall === null) return new EvaluationFailure(`unknown time zone \`${context.timeZone}\``);
  lastZone = context.timeZone;
  lastInstant = timestamp;
  lastWall = wall;
  return wall;
}

function compare(actual: number, comparison: Comparison, reference: number): boolean {
  return comparison === 'before' ? actual < reference : comparison === 'after' ? actual > reference : actual === reference;
}

/** `reference` is yyyymmdd. */
export function dateIs(comparison: Comparison, reference: number): Evaluate<boolean> {
  return (context) => {
    const wall = eventWallClock(context);
    if (wall instanceof EvaluationFailure) return wall;
    return compare(wall.year * 10_000 + wall.month * 100 + wall.day, comparison, reference);
  };
}

/** `reference` is minutes since midnight; seconds are ignored (minute precision). */
export function timeIs(comparison: Comparison, reference: number): Evaluate<boolean> {
  return (context) => {
    const wall = eventWallClock(context);
    if (wall instanceof EvaluationFailure) return wall;
    return compare(wall.hour * 60 + wall.minute, comparison, reference);
  };
}

/** `days` holds 0 = Sunday … 6 = Saturday. */
export function dayIn(days: ReadonlySet<number>): Evaluate<boolean> {
  return (context) => {
    const wall = eventWallClock(context);
    if (wall instanceof EvaluationFailure) return wall;
    const date = new Date(0);
    date.setUTCFullYear(wall.year, wall.month - 1, wall.day);
    return days.has(date.getUTCDay());
  };
}
