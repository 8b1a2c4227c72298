import { CronExpressionParser } from 'cron-parser';
import { instantOf, isKnownTimeZone, wallClockOf } from '../time/zoned';

/** What a timer's fire times are computed from (a `TimerDocument` is one). */
export interface FireSchedule {
  /** The schedule in cron-parser's six-field syntax (see readQuartzCron). */
  readonly schedule: string;
  /** The years the Quartz year field allows, ascending; absent when it allows every year. */
  readonly years?: readonly number[];
}

/**
 * The first fire time of `timer` strictly after `after`, on the wall clock of `timeZone` (Quartz schedules are
 * wall-clock times; the pdp passes POLICY_TIMEZONE). Null when the timer never fires again: its last allowed year is
 * over, or no date of its remaining years matches (`0 0 0 29 2 ? 2027` never fires). The one schedule function of
 * Custos: the pdp schedules with it, and the registration check asks it whether a timer still fires.
 * An unknown time zone is a caller's bug and throws a RangeError.
 */
export function nextFireTime(timer: FireSchedule, after: Date, timeZone: string): Date | null {
  if (!isKnownTimeZone(timeZone)) throw new RangeError(`unknown time zone \`${timeZone}\``);
  let cursor = after.getTime();
  if (!Number.isFinite(cursor)) throw new RangeError('`after` is not a valid date');
  const years = timer.years;
  for (;;) {
    if (years !== undefined) {
      const year = yearOf(cursor, timeZone);
      const allowed = years.find((candidate) => candidate >= year);
      if (allowed === undefined) return null;
      // Skip the years in between at once: one millisecond before the allowed year starts, so its first instant counts.
      if (allowed > year) cursor = startOfYear(allowed, timeZone) - 1;
    }
    const next = cronParserNext(timer.schedule, cursor, timeZone);
    if (next === null) return null;
    // Otherwise `next` lies in a later year the field does not allow: the next round jumps past it, so this ends.
    if (years === undefined || years.includes(yearOf(next, timeZone))) return new Date(next);
    cursor = next;
  }
}

/** cron-parser's next time strictly after `after`, or null when it finds none (it gives up after 10,000 steps). */
function cronParserNext(schedule: string, after: number, timeZone: string): number | null {
  const expression = CronExpressionParser.parse(schedule, { tz: timeZone, currentDate: new Date(after) });
  try {
    const next = expression.next().getTime();
    return Number.isFinite(next) ? next : null;
  } catch {
    // An expression that parsed but has no next date within cron-parser's search: it does not fire.
    return null;
  }
}

function yearOf(instant: number, timeZone: string): number {
  const wall = wallClockOf(instant, timeZone);
  if (wall === null) throw new RangeError(`no wall clock for ${instant} in \`${timeZone}\``);
  return wall.year;
}

function startOfYear(year: number, timeZone: string): number {
  const start = instantOf({ year, month: 1, day: 1, hour: 0, minute: 0, second: 0, millisecond: 0 }, timeZone);
  if (start === null) throw new RangeError(`no start of ${year} in \`${timeZone}\``);
  return start;
}
