import { fireTimeText, readCron } from '../src/web/logic/timers';

describe("a timer's cron in words, in Custos's Quartz dialect (policy-language.md §11)", () => {
  test("the docs' examples", () => {
    expect(readCron('0 30 2 * * ?')).toBe('At 02:30');
    expect(readCron('0 0 7 ? * MON-FRI')).toBe('At 07:00, Monday through Friday');
    expect(readCron('0 0 12 24 12 ? 2027')).toBe('At 12:00, on day 24 of the month, only in December, only in 2027');
  });

  test("day-of-week numbers are Quartz's: 1 is Sunday, 7 is Saturday", () => {
    expect(readCron('0 0 7 ? * 1')).toBe('At 07:00, only on Sunday');
    expect(readCron('0 0 7 ? * 7')).toBe('At 07:00, only on Saturday');
    expect(readCron('0 0 7 ? * 2-6')).toBe('At 07:00, Monday through Friday');
  });

  test('L, nL and n#k', () => {
    expect(readCron('0 0 7 L * ?')).toBe('At 07:00, on the last day of the month');
    expect(readCron('0 0 7 ? * 6L')).toBe('At 07:00, on the last Friday of the month');
    expect(readCron('0 15 10 ? * 6#3')).toBe('At 10:15, on the third Friday of the month');
  });

  test('seconds first, and steps', () => {
    expect(readCron('*/10 * * * * ?')).toBe('Every 10 seconds');
    expect(readCron('0 0/15 * * * ?')).toBe('Every 15 minutes');
  });

  test('nothing for what is not a cron', () => {
    expect(readCron('every night')).toBe('');
  });
});

describe('a fire time on the wall clock of the cron', () => {
  test('in its zone, with seconds only when there are any', () => {
    expect(fireTimeText('2026-11-28T02:00:00.000Z', 'UTC')).toBe('Sat 28 Nov 2026 02:00');
    // 06:00 UTC is 07:00 in Berlin in winter, and 08:00 in summer.
    expect(fireTimeText('2026-12-07T06:00:00.000Z', 'Europe/Berlin')).toBe('Mon 7 Dec 2026 07:00');
    expect(fireTimeText('2026-07-06T06:00:00.000Z', 'Europe/Berlin')).toBe('Mon 6 Jul 2026 08:00');
    expect(fireTimeText('2026-11-28T02:00:10.000Z', 'UTC')).toBe('Sat 28 Nov 2026 02:00:10');
    expect(fireTimeText('not a time', 'UTC')).toBe('not a time');
  });
});
