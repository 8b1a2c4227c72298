import type { TimeSpan } from '../evaluate/ports';
import { daysInMonth } from '../parse/calendar';
import type { FixedTime, TimeExpression, TimeField } from '../parse/time-expression';
import { instantOf, utcAsWall, wallClockOf, type WallClock } from './zoned';

/**
 * The `when` spans of policy-language.md §6 as pure functions of (now, zone). Spans are [from, to) in ms; a span that
 * ends "now" includes now (to = now + 1), because the event being decided is recorded at now before it is decided.
 * Every function returns null only for a zone `Intl` does not know.
 */

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

function startOfDay(wall: WallClock, timeZone: string): number | null {
  return instantOf({ year: wall.year, month: wall.month, day: wall.day, hour: 0, minute: 0, second: 0, millisecond: 0 }, timeZone);
}

/** The calendar date `days` after the wall clock's date (negative: before), at midnight. */
function shiftDate(wall: WallClock, days: number): WallClock {
  return { ...utcAsWall(utcDate(wall.year, wall.month, wall.day + days)), hour: 0, minute: 0, second: 0, millisecond: 0 };
}

/** Midnight UTC of a calendar date, overflowing days roll into the next months; unlike Date.UTC, years 0–99 stay. */
function utcDate(year: number, month: number, day: number): number {
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  return date.getTime();
}

type Unit = 'minute' | 'hour' | 'day' | 'week' | 'sunWeek' | 'month' | 'year';

/** Start of the unit containing `instant`. Minutes and hours are cut on the wall clock's fields, so an hour repeated
 * by a daylight-saving change is still one hour long. */
export function startOf(unit: Unit, instant: number, timeZone: string): number | null {
  const wall = wallClockOf(instant, timeZone);
  if (wall === null) return null;
  switch (unit) {
    case 'minute':
      return instant - wall.second * 1000 - wall.millisecond;
    case 'hour':
      return instant - wall.minute * MINUTE - wall.second * 1000 - wall.millisecond;
    case 'day':
      return startOfDay(wall, timeZone);
    case 'week':
    case 'sunWeek': {
      const weekday = new Date(utcDate(wall.year, wall.month, wall.day)).getUTCDay();
      const first = unit === 'week' ? 1 : 0;
      return startOfDay(shiftDate(wall, -((weekday - first + 7) % 7)), timeZone);
    }
    case 'month':
      return startOfDay({ ...wall, day: 1 }, timeZone);
    case 'year':
      return startOfDay({ ...wall, month: 1, day: 1 }, timeZone);
  }
}

const FIXED: Readonly<Record<Exclude<FixedTime, 'always'>, readonly [Unit, 'this' | 'last']>> = {
  thisMinute: ['minute', 'this'],
  lastMinute: ['minute', 'last'],
  thisHour: ['hour', 'this'],
  lastHour: ['hour', 'last'],
  today: ['day', 'this'],
  yesterday: ['day', 'last'],
  thisWeek: ['week', 'this'],
  lastWeek: ['week', 'last'],
  thisSunWeek: ['sunWeek', 'this'],
  lastSunWeek: ['sunWeek', 'last'],
  thisMonth: ['month', 'this'],
  lastMonth: ['month', 'last'],
  thisYear: ['year', 'this'],
  lastYear: ['year', 'last'],
};

/** "this" spans run from the unit's start to now; "last" spans are the whole previous unit. */
export function fixedTimeSpan(fixedTime: FixedTime, now: number, timeZone: string): TimeSpan | null {
  if (fixedTime === 'always') return wallClockOf(now, timeZone) === null ? null : { from: -Infinity, to: now + 1 };
  const [unit, which] = FIXED[fixedTime];
  const start = startOf(unit, now, timeZone);
  if (start === null) return null;
  if (which === 'this') return { from: start, to: now + 1 };
  const previous = startOf(unit, start - 1, timeZone);
  return previous === null ? null : { from: previous, to: start };
}

/** Upper bound of how far back from now a fixedTime span reaches, with an hour of slack for daylight saving. */
export function fixedTimeReachMs(fixedTime: FixedTime): number {
  const reach: Record<FixedTime, number> = {
    thisMinute: MINUTE,
    lastMinute: 2 * MINUTE,
    thisHour: HOUR,
    lastHour: 2 * HOUR,
    today: DAY,
    yesterday: 2 * DAY,
    thisWeek: 7 * DAY,
    lastWeek: 14 * DAY,
    thisSunWeek: 7 * DAY,
    lastSunWeek: 14 * DAY,
    thisMonth: 31 * DAY,
    lastMonth: 62 * DAY,
    thisYear: 366 * DAY,
    lastYear: 732 * DAY,
    always: Infinity,
  };
  return reach[fixedTime] + HOUR;
}

const offsetOf = (field: TimeField): number => (field.kind === 'relative' ? field.offset : 0);

/**
 * A time expression against a reference time (now, or a FIRST/LAST occurrence): offsets first — years and months on
 * the calendar (the day clamped to the month's length), then days on the calendar, then hours, minutes and seconds as
 * exact durations — then the absolute fields are set (a day past the month's end is clamped to its last day). A
 * result after now is clamped to now. Milliseconds are kept from the reference unless the seconds are absolute.
 */
export function resolveTimeExpression(expression: TimeExpression, reference: number, now: number, timeZone: string): number | null {
  const wall = wallClockOf(reference, timeZone);
  if (wall === null) return null;
  const months = wall.year * 12 + (wall.month - 1) + offsetOf(expression.year) * 12 + offsetOf(expression.month);
  const year = Math.floor(months / 12);
  const month = months - year * 12 + 1;
  const day = Math.min(wall.day, daysInMonth(year, month));
  const date = shiftDate({ ...wall, year, month, day }, offsetOf(expression.day));
  const shifted = instantOf({ ...date, hour: wall.hour, minute: wall.minute, second: wall.second, millisecond: wall.millisecond }, timeZone);
  if (shifted === null) return null;
  const moved = shifted + (offsetOf(expression.hour) * 3600 + offsetOf(expression.minute) * 60 + offsetOf(expression.second)) * 1000;
  const after = wallClockOf(moved, timeZone);
  if (after === null) return null;
  const absolute = (field: TimeField, current: number): number => (field.kind === 'absolute' ? field.value : current);
  const setYear = absolute(expression.year, after.year);
  const setMonth = absolute(expression.month, after.month);
  const result = instantOf(
    {
      year: setYear,
      month: setMonth,
      day: Math.min(absolute(expression.day, after.day), daysInMonth(setYear, setMonth)),
      hour: absolute(expression.hour, after.hour),
      minute: absolute(expression.minute, after.minute),
      second: absolute(expression.second, after.second),
      millisecond: expression.second.kind === 'absolute' ? 0 : after.millisecond,
    },
    timeZone,
  );
  return result === null ? null : Math.min(result, now);
}

/** Upper bound of how far back from its reference a time expression can reach (Infinity with an absolute year). */
export function timeExpressionReachMs(expression: TimeExpression): number {
  if (expression.year.kind === 'absolute') return Infinity;
  const back = (field: TimeField, unit: number, absoluteReach: number): number =>
    field.kind === 'relative' ? Math.max(0, -field.offset) * unit : field.kind === 'absolute' ? absoluteReach : 0;
  return (
    back(expression.year, 366 * DAY, 0) +
    back(expression.month, 31 * DAY, 366 * DAY) +
    back(expression.day, DAY, 31 * DAY) +
    back(expression.hour, HOUR, DAY) +
    back(expression.minute, MINUTE, HOUR) +
    back(expression.second, 1000, MINUTE) +
    DAY
  );
}

/** `continuousOccurrence` (§6): consecutive windows of `interval` from the span's start, the last cut at its end. */
export function windowsOf(span: TimeSpan, interval: number, limit: number): TimeSpan[] | null {
  if (!Number.isFinite(span.from) || interval <= 0) return null;
  const count = Math.ceil((span.to - span.from) / interval);
  if (count > limit) return null;
  const windows: TimeSpan[] = [];
  for (let from = span.from; from < span.to; from += interval) windows.push({ from, to: Math.min(from + interval, span.to) });
  return windows;
}
