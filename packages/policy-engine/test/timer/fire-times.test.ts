import { nextFireTime, type FireSchedule } from '../../src/timer/fire-times';
import { readQuartzCron } from '../../src/timer/quartz';

/** The schedule of a Quartz expression, as loadTimer puts it in a timer document. */
function schedule(quartz: string): FireSchedule {
  const read = readQuartzCron(quartz);
  if (!read.ok) throw new Error(read.problem);
  return read.value.years === undefined ? { schedule: read.value.cronParser } : { schedule: read.value.cronParser, years: read.value.years };
}

const next = (quartz: string, after: string, timeZone = 'UTC'): string | null =>
  nextFireTime(schedule(quartz), new Date(after), timeZone)?.toISOString() ?? null;

describe('nextFireTime', () => {
  it('fires at wall-clock times of the zone, across daylight saving', () => {
    // Berlin is UTC+1 in winter, UTC+2 in summer.
    expect(next('0 0 2 * * ?', '2026-01-10T12:00:00Z', 'Europe/Berlin')).toBe('2026-01-11T01:00:00.000Z');
    expect(next('0 0 2 * * ?', '2026-07-10T12:00:00Z', 'Europe/Berlin')).toBe('2026-07-11T00:00:00.000Z');
    // Quartz day-of-week 2 is Monday; 2026-03-04 is a Wednesday.
    expect(next('0 0 9 ? * 2', '2026-03-04T12:00:00Z')).toBe('2026-03-09T09:00:00.000Z');
  });

  it('fires strictly after `after`', () => {
    expect(next('0 0 12 * * ?', '2026-05-01T12:00:00.000Z')).toBe('2026-05-02T12:00:00.000Z');
    expect(next('0 0 12 * * ?', '2026-05-01T11:59:59.999Z')).toBe('2026-05-01T12:00:00.000Z');
  });

  it('fires a one-shot schedule once, then never again', () => {
    const oneShot = '0 0 12 24 12 ? 2027';
    expect(next(oneShot, '2026-11-24T00:00:00Z')).toBe('2027-12-24T12:00:00.000Z');
    expect(next(oneShot, '2027-12-24T11:59:59.999Z')).toBe('2027-12-24T12:00:00.000Z');
    expect(next(oneShot, '2027-12-24T12:00:00.000Z')).toBeNull();
    // 12:00 in Berlin in December is 11:00 UTC.
    expect(next(oneShot, '2026-11-24T00:00:00Z', 'Europe/Berlin')).toBe('2027-12-24T11:00:00.000Z');
  });

  it('never fires for years that are over', () => {
    expect(next('0 0 12 24 12 ? 2020', '2026-11-24T00:00:00Z')).toBeNull();
    expect(next('0 0 0 * * ? 2020-2025', '2026-01-01T00:00:00Z')).toBeNull();
  });

  it('skips to the next allowed year of a range, a list or a step', () => {
    expect(next('0 0 0 1 1 ? 2027-2029', '2027-06-01T00:00:00Z')).toBe('2028-01-01T00:00:00.000Z');
    expect(next('0 0 0 1 1 ? 2027-2029', '2029-01-01T00:00:00Z')).toBeNull();
    expect(next('0 0 0 1 6 ? 2027,2030', '2027-07-01T00:00:00Z')).toBe('2030-06-01T00:00:00.000Z');
    expect(next('0 0 0 1 1 ? 2026/3', '2026-01-01T00:00:00Z')).toBe('2029-01-01T00:00:00.000Z');
    expect(next('0 0 0 1 1 ? *', '2026-05-01T00:00:00Z')).toBe('2027-01-01T00:00:00.000Z');
  });

  it('looks for a matching date through the allowed years only', () => {
    // Leap days of 2027–2032: 2028 and 2032.
    expect(next('0 0 0 29 2 ? 2027-2032', '2026-01-01T00:00:00Z')).toBe('2028-02-29T00:00:00.000Z');
    expect(next('0 0 0 29 2 ? 2027-2032', '2028-02-29T00:00:00Z')).toBe('2032-02-29T00:00:00.000Z');
    // A fifth Monday of February needs a leap year starting February on a Monday (2016, 2044): none in 2027–2030.
    expect(nextFireTime({ schedule: '0 0 0 ? 2 1#5', years: [2027, 2028, 2029, 2030] }, new Date('2026-01-01T00:00:00Z'), 'UTC')).toBeNull();
  });

  it('reads the year on the wall clock of the zone', () => {
    // 00:30 on 2027-01-01 in Berlin is 23:30 UTC on 2026-12-31: a fire time of 2027 there.
    expect(next('0 30 0 1 1 ? 2027', '2026-12-31T12:00:00Z', 'Europe/Berlin')).toBe('2026-12-31T23:30:00.000Z');
    // The same wall time in UTC is a year later.
    expect(next('0 30 0 1 1 ? 2027', '2026-12-31T12:00:00Z')).toBe('2027-01-01T00:30:00.000Z');
  });

  it('throws for an unknown time zone, which is a bug of the caller', () => {
    expect(() => next('0 0 0 * * ?', '2026-01-01T00:00:00Z', 'Nowhere/Zone')).toThrow(RangeError);
  });
});
