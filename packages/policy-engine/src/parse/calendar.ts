import { excerpt } from '../diagnostics';
import { readOk, readProblem, type ReadResult } from './read-result';

/** `date`/`time` comparisons; `is` is read in any case (policy-language.md §5). */
export const COMPARISONS = ['before', 'after', 'exactly'] as const;
export type Comparison = (typeof COMPARISONS)[number];

export function readComparison(text: string): ReadResult<Comparison> {
  const lower = text.trim().toLowerCase();
  return lower === 'before' || lower === 'after' || lower === 'exactly'
    ? readOk(lower)
    : readProblem(`\`${excerpt(text)}\` is not \`before\`, \`after\` or \`exactly\``);
}

/** A calendar day as one comparable number: yyyymmdd. */
export function readDayOfYear(text: string): ReadResult<number> {
  const match = /^(\d{1,2})\.(\d{1,2})\.(\d{4})$/.exec(text.trim());
  if (match === null) return readProblem(`\`${excerpt(text)}\` is not a date of the form \`dd.mm.yyyy\``);
  const [day, month, year] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) {
    return readProblem(`\`${excerpt(text)}\` is not a date of the calendar`);
  }
  return readOk(year * 10_000 + month * 100 + day);
}

/** A time of day as minutes since midnight; one-digit hours are accepted. */
export function readMinuteOfDay(text: string): ReadResult<number> {
  const match = /^(\d{1,2}):(\d{2})$/.exec(text.trim());
  if (match === null) return readProblem(`\`${excerpt(text)}\` is not a time of the form \`hh:mm\``);
  const [hour, minute] = [Number(match[1]), Number(match[2])];
  if (hour > 23 || minute > 59) return readProblem(`\`${excerpt(text)}\` is not a time of day`);
  return readOk(hour * 60 + minute);
}

/** 0 = Sunday … 6 = Saturday, as `Date.prototype.getUTCDay`. */
export const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'] as const;

/** `day/@value`: a comma list of English day names, in any case. */
export function readWeekdays(text: string): ReadResult<ReadonlySet<number>> {
  const days = new Set<number>();
  for (const part of text.split(',')) {
    const index = (WEEKDAYS as readonly string[]).indexOf(part.trim().toLowerCase());
    if (index < 0) return readProblem(`\`${excerpt(part.trim())}\` is not an english day name (\`monday\` … \`sunday\`)`);
    days.add(index);
  }
  return readOk(days);
}

export function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}
