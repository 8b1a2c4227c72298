import { readQuartzCron } from '../../src/timer/quartz';
import { readYearField } from '../../src/timer/quartz-years';

describe('readYearField', () => {
  it.each([
    ['*', null],
    ['?', null],
    ['2027', [2027]],
    ['2027-2029', [2027, 2028, 2029]],
    ['2030,2027', [2027, 2030]],
    ['2030,2027-2028,2028', [2027, 2028, 2030]],
    // A step from a year runs to 2099, the last year Quartz knows.
    ['2095/2', [2095, 2097, 2099]],
    ['2090-2099/4', [2090, 2094, 2098]],
    // A step after `*` counts from 1970.
    ['*/50', [1970, 2020, 2070]],
    ['1970,2099', [1970, 2099]],
  ])('reads %j as %j', (field, years) => {
    expect(readYearField(field)).toEqual({ ok: true, value: years });
  });

  it.each([
    ['1969', /`1969` is not a year from 1970 to 2099/],
    ['2100', /`2100` is not a year from 1970 to 2099/],
    ['27', /`27` is not a year/],
    ['2030-2027', /ends before it starts/],
    ['2027/0', /at least 1/],
    ['2027/x', /at least 1/],
    ['2027-2028-2029', /not a year, a range of years or a step/],
    ['2027,', /`` is not a year/],
    ['L', /`L` is not a year/],
  ])('refuses %j', (field, problem) => {
    const read = readYearField(field);
    expect(read.ok).toBe(false);
    if (!read.ok) expect(read.problem).toMatch(problem);
  });
});

describe('readQuartzCron with a year field', () => {
  it('keeps the years apart from the six fields cron-parser reads', () => {
    expect(readQuartzCron('0 0 12 24 12 ? 2027')).toEqual({
      ok: true,
      value: { quartz: '0 0 12 24 12 ? 2027', cronParser: '0 0 12 24 12 ?', years: [2027] },
    });
    expect(readQuartzCron('0 0 0 1 1 ? 2027-2028')).toEqual({
      ok: true,
      value: { quartz: '0 0 0 1 1 ? 2027-2028', cronParser: '0 0 0 1 1 ?', years: [2027, 2028] },
    });
  });

  it('accepts a schedule whose years are past: when it still fires is a question of the clock, not of the text', () => {
    expect(readQuartzCron('0 0 12 24 12 ? 2020').ok).toBe(true);
  });

  it('refuses schedules that fire in no year at all', () => {
    // 2027 is no leap year; 2028 is.
    const noLeapDay = readQuartzCron('0 0 0 29 2 ? 2027');
    expect(noLeapDay).toEqual({ ok: false, problem: '`0 0 0 29 2 ? 2027` is not a valid schedule: it never fires' });
    expect(readQuartzCron('0 0 0 29 2 ? 2027-2028').ok).toBe(true);
    const never = readQuartzCron('0 0 0 30 2 ?');
    expect(never.ok).toBe(false);
    if (!never.ok) expect(never.problem).toMatch(/^`0 0 0 30 2 \?` is not a valid schedule: /);
  });

  it('names the year field in its problems', () => {
    expect(readQuartzCron('0 0 0 * * ? 2027-2100')).toEqual({
      ok: false,
      problem: 'the year field `2027-2100`: `2100` is not a year from 1970 to 2099',
    });
  });
});
