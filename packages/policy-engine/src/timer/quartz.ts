import { CronExpressionParser } from 'cron-parser';
import { excerpt, messageStyle } from '../diagnostics';
import { readOk, readProblem, type ReadResult } from '../parse/read-result';
import { nextFireTime } from './fire-times';
import { FIRST_YEAR, readYearField } from './quartz-years';

/**
 * A Quartz cron expression (policy-language.md §10: seconds first) checked for its shape, translated to the
 * six-field dialect of `cron-parser` (with the year field kept aside, as a list of years), and checked completely:
 * cron-parser must read it and it must fire at least once in some year (`0 0 0 30 2 ?` never does). Whether it still
 * fires after a given time is `nextFireTime`'s question, asked by the services with their clock.
 *
 * Quartz: `sec min hour day-of-month month day-of-week [year]`. Differences handled here:
 * - day-of-week numbers are 1–7 with 1 = Sunday in Quartz, 0–7 with 0 = Sunday in cron-parser: numbers are shifted
 *   down by one (`2-6` → `1-5`, `6#3` → `5#3`, `6L` → `5L`); names (`MON`) stay; a bare `L` (Saturday) becomes `6`;
 * - Quartz does not combine a day-of-month with a day-of-week (one of them must be `?` or `*`), while cron-parser
 *   would take either: such expressions are refused;
 * - the optional year field (1970–2099; `*`, years, ranges, steps, lists) has no cron-parser twin: its years are
 *   returned apart, and fire times in other years are skipped (fire-times.ts);
 * - `W`, `LW`, `L-n` (nearest weekday, offsets), cron-parser's `H` and `@` macros are not part of what Custos
 *   supports and are refused with a clear message.
 */
export interface QuartzSchedule {
  /** The expression as written, trimmed, fields joined by one space. */
  readonly quartz: string;
  /** The same schedule in cron-parser's six-field syntax, without the year. */
  readonly cronParser: string;
  /** The years the year field allows, ascending; absent when it allows every year. */
  readonly years?: readonly number[];
}

const DAY_NAMES = new Set(['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT']);
/** Only these characters may appear in a field (digits, names, `* ? , - / L #`). */
const FIELD_CHARACTERS = /^[0-9A-Za-z*?,\-/#]+$/;
const FIELD_NAMES = ['second', 'minute', 'hour', 'day-of-month', 'month', 'day-of-week', 'year'] as const;

const restricted = (field: string): boolean => field !== '*' && field !== '?';

export function readQuartzCron(text: string): ReadResult<QuartzSchedule> {
  const trimmed = text.trim();
  if (trimmed === '') return readProblem('the cron expression is empty');
  if (trimmed.startsWith('@')) return readProblem(`\`${excerpt(trimmed)}\`: \`@\` shortcuts are not quartz cron; write the six fields`);
  const fields = trimmed.split(/\s+/);
  if (fields.length < 6 || fields.length > 7) {
    return readProblem(
      `\`${excerpt(trimmed)}\` has ${fields.length} field${fields.length === 1 ? '' : 's'}; a quartz cron expression has 6 or 7 ` +
        '(second minute hour day-of-month month day-of-week [year])',
    );
  }
  for (const [index, field] of fields.entries()) {
    if (!FIELD_CHARACTERS.test(field)) {
      return readProblem(`the ${FIELD_NAMES[index]} field \`${excerpt(field)}\` holds a character quartz cron does not allow`);
    }
    if (/(^|[,\-/])H/i.test(field)) {
      return readProblem(`the ${FIELD_NAMES[index]} field \`${excerpt(field)}\` uses \`H\`, which quartz cron does not have`);
    }
  }
  const [second, minute, hour, dayOfMonth, month, dayOfWeek, year] = fields as [string, string, string, string, string, string, string?];
  const years = year === undefined ? readOk(null) : readYearField(year);
  if (!years.ok) return readProblem(`the year field \`${excerpt(year ?? '')}\`: ${years.problem}`);
  if (/W/i.test(dayOfMonth) || /L-/i.test(dayOfMonth)) {
    return readProblem(`the day-of-month field \`${excerpt(dayOfMonth)}\` uses \`W\` or \`L-n\`, which are not supported`);
  }
  if (dayOfMonth.includes('#')) return readProblem(`the day-of-month field \`${excerpt(dayOfMonth)}\` cannot use \`#\``);
  if (restricted(dayOfMonth) && restricted(dayOfWeek)) {
    return readProblem(
      `day-of-month \`${excerpt(dayOfMonth)}\` and day-of-week \`${excerpt(dayOfWeek)}\` are both given; quartz needs \`?\` in one of them`,
    );
  }
  const weekday = translateDayOfWeek(dayOfWeek);
  if (!weekday.ok) return weekday;
  const cronParser = [second, minute, hour, dayOfMonth.toUpperCase(), month.toUpperCase(), weekday.value].join(' ');
  const quartz = fields.join(' ');
  const schedule: QuartzSchedule = years.value === null ? { quartz, cronParser } : { quartz, cronParser, years: years.value };
  const fires = firesAtAll(schedule);
  return fires === null ? readOk(schedule) : readProblem(`\`${excerpt(quartz, 60)}\` is not a valid schedule: ${fires}`);
}

/** Null when cron-parser reads the schedule and it fires in some year, else why not (independent of today's date). */
function firesAtAll(schedule: QuartzSchedule): string | null {
  try {
    CronExpressionParser.parse(schedule.cronParser, { tz: 'UTC' });
  } catch (error) {
    return messageStyle(error instanceof Error ? error.message : String(error));
  }
  const from = Date.UTC(schedule.years?.[0] ?? FIRST_YEAR, 0, 1) - 1;
  const fireSchedule = schedule.years === undefined ? { schedule: schedule.cronParser } : { schedule: schedule.cronParser, years: schedule.years };
  return nextFireTime(fireSchedule, new Date(from), 'UTC') === null ? 'it never fires' : null;
}

/** Quartz day-of-week (1 = Sunday … 7 = Saturday) → cron-parser (0 = Sunday … 6 = Saturday). */
function translateDayOfWeek(field: string): ReadResult<string> {
  if (field === '*' || field === '?') return readOk(field);
  const items: string[] = [];
  for (const item of field.toUpperCase().split(',')) {
    const slash = item.indexOf('/');
    const range = slash === -1 ? item : item.slice(0, slash);
    const step = slash === -1 ? null : item.slice(slash + 1);
    if (step !== null && !/^\d{1,2}$/.test(step)) return readProblem(`the day-of-week step \`${excerpt(item)}\` is not a number`);
    const translated = translateDayRange(range);
    if (!translated.ok) return translated;
    items.push(step === null ? translated.value : `${translated.value}/${step}`);
  }
  return readOk(items.join(','));
}

function translateDayRange(range: string): ReadResult<string> {
  if (range === '*' || range === '?') return readOk(range);
  if (range === 'L') return readOk('6');
  const nth = /^([A-Z0-9]+)#([1-5])$/.exec(range);
  if (nth !== null) {
    const day = translateDay(nth[1] ?? '');
    return day.ok ? readOk(`${day.value}#${nth[2] ?? ''}`) : day;
  }
  const last = /^([A-Z0-9]+)L$/.exec(range);
  if (last !== null) {
    const day = translateDay(last[1] ?? '');
    return day.ok ? readOk(`${day.value}L`) : day;
  }
  const parts = range.split('-');
  if (parts.length > 2 || parts.some((part) => part === '')) return readProblem(`the day-of-week \`${excerpt(range)}\` is not a day or a range of days`);
  const days: string[] = [];
  for (const part of parts) {
    const day = translateDay(part);
    if (!day.ok) return day;
    days.push(day.value);
  }
  return readOk(days.join('-'));
}

function translateDay(day: string): ReadResult<string> {
  if (DAY_NAMES.has(day)) return readOk(day);
  if (/^[1-7]$/.test(day)) return readOk(String(Number(day) - 1));
  return readProblem(`\`${excerpt(day)}\` is not a quartz day of week (1-7 with 1 = SUN, or SUN-SAT)`);
}
