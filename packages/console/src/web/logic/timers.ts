import cronstrue from 'cronstrue';

/**
 * A timer's cron in words (`At 07:00, Monday through Friday`), or '' when it cannot be read. Custos's cron is
 * Quartz's (policy-language.md §11): seconds first, an optional year, day-of-week numbers 1 = Sunday to 7 = Saturday,
 * `L`, `nL` and `n#k`. cronstrue reads that dialect when told that day-of-week numbers start at 1 (its default is
 * 0 = Sunday); a 24-hour clock matches the times the cron is written in.
 */
export function readCron(cron: string): string {
  try {
    return cronstrue.toString(cron, { dayOfWeekStartIndexZero: false, use24HourTimeFormat: true, throwExceptionOnParseError: true, locale: 'en' });
  } catch {
    return '';
  }
}

/** A fire time on the wall clock of the zone the cron is read in: `Sat 28 Nov 2026 02:00` (no comma: they are listed with commas). */
export function fireTimeText(instant: string, timeZone: string): string {
  const date = new Date(instant);
  if (Number.isNaN(date.getTime())) return instant;
  const day = new Intl.DateTimeFormat('en-GB', { timeZone, weekday: 'short', day: 'numeric', month: 'short', year: 'numeric' }).format(date);
  const time = new Intl.DateTimeFormat('en-GB', { timeZone, hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' }).format(date);
  return `${day.replace(/,/g, '')} ${time.endsWith(':00') ? time.slice(0, -3) : time}`;
}
