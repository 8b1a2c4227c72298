import { readTimeExpression, type TimeExpression } from '../../src/parse/time-expression';
import { fixedTimeSpan, resolveTimeExpression, startOf, windowsOf } from '../../src/time/spans';
import { instantOf, wallClockOf } from '../../src/time/zoned';

const at = (iso: string): number => Date.parse(iso);
const iso = (time: number | null | undefined): string | null => (time === null || time === undefined ? null : new Date(time).toISOString());
const BERLIN = 'Europe/Berlin';
const SYDNEY = 'Australia/Sydney';

function expression(text: string): TimeExpression {
  const read = readTimeExpression(text);
  if (!read.ok) throw new Error(read.problem);
  return read.value;
}

function span(fixedTime: Parameters<typeof fixedTimeSpan>[0], now: string, zone = BERLIN): [string | null, string | null] {
  const result = fixedTimeSpan(fixedTime, at(now), zone);
  if (result === null) throw new Error('no span');
  return [Number.isFinite(result.from) ? iso(result.from) : null, iso(result.to)];
}

describe('wall clock and instants', () => {
  it('reads the wall clock of a zone on both sides of a daylight-saving change', () => {
    expect(wallClockOf(at('2024-03-31T00:59:59Z'), BERLIN)).toMatchObject({ day: 31, hour: 1, minute: 59, second: 59 });
    expect(wallClockOf(at('2024-03-31T01:00:00Z'), BERLIN)).toMatchObject({ day: 31, hour: 3, minute: 0 });
    expect(wallClockOf(at('2024-10-27T00:30:00Z'), BERLIN)).toMatchObject({ hour: 2, minute: 30 });
    expect(wallClockOf(at('2024-10-27T01:30:00Z'), BERLIN)).toMatchObject({ hour: 2, minute: 30 });
    expect(wallClockOf(0, 'Not/AZone')).toBeNull();
  });

  it('takes a skipped wall time to after the gap and an ambiguous one to the earlier instant', () => {
    const wall = { year: 2024, month: 3, day: 31, hour: 2, minute: 30, second: 0, millisecond: 0 };
    expect(iso(instantOf(wall, BERLIN))).toBe('2024-03-31T01:30:00.000Z'); // 03:30 CEST
    expect(iso(instantOf({ ...wall, month: 10, day: 27 }, BERLIN))).toBe('2024-10-27T00:30:00.000Z'); // first 02:30 (CEST)
    expect(iso(instantOf({ ...wall, hour: 12, minute: 0 }, BERLIN))).toBe('2024-03-31T10:00:00.000Z');
  });

  it('finds the start of a day whose midnight does not exist', () => {
    // America/Santiago skipped 00:00–01:00 on 2022-09-11: the day starts at 01:00 local = 04:00Z.
    expect(iso(startOf('day', at('2022-09-11T15:00:00Z'), 'America/Santiago'))).toBe('2022-09-11T04:00:00.000Z');
  });
});

describe('wall clock read many times in one minute (the offset remembered per minute)', () => {
  /** Every 250 ms of a minute, each read twice, so that the remembered offset answers all but the first reads. */
  const readsOfMinute = (startIso: string, zone: string) => {
    const start = at(startIso);
    const reads: Array<ReturnType<typeof wallClockOf>> = [];
    for (let offset = 0; offset < 60_000; offset += 250) {
      reads.push(wallClockOf(start + offset, zone));
      reads.push(wallClockOf(start + offset, zone));
    }
    return reads;
  };

  it('gives the wall clock Intl gives, on each side of a summer-time change', () => {
    const before = readsOfMinute('2024-03-31T00:59:00Z', BERLIN);
    expect(before[0]).toMatchObject({ day: 31, hour: 1, minute: 59, second: 0 });
    expect(before[before.length - 1]).toMatchObject({ day: 31, hour: 1, minute: 59, second: 59, millisecond: 750 });
    const after = readsOfMinute('2024-03-31T01:00:00Z', BERLIN);
    expect(after[0]).toMatchObject({ day: 31, hour: 3, minute: 0, second: 0 });
    expect(after[after.length - 1]).toMatchObject({ day: 31, hour: 3, minute: 0, second: 59, millisecond: 750 });
  });

  it('a minute in which the offset changes is read by Intl every time', () => {
    // Liberia went from −0:44:30 to UTC at 1972-01-07 00:44:30Z, half way through a minute of UTC.
    const reads = readsOfMinute('1972-01-07T00:44:00Z', 'Africa/Monrovia');
    expect(reads[0]).toMatchObject({ year: 1972, month: 1, day: 6, hour: 23, minute: 59, second: 30 });
    expect(reads[2 * 116]).toMatchObject({ day: 6, hour: 23, minute: 59, second: 59, millisecond: 0 });
    expect(reads[2 * 120]).toMatchObject({ day: 7, hour: 0, minute: 44, second: 30, millisecond: 0 });
    expect(reads[reads.length - 1]).toMatchObject({ day: 7, hour: 0, minute: 44, second: 59, millisecond: 750 });
  });

  it('today asked all day long starts at the same midnight, and the next day at the next', () => {
    const starts = new Set<string | null>();
    for (let hour = 0; hour < 24; hour += 1) starts.add(span('today', `2024-05-10T${String(hour).padStart(2, '0')}:30:00Z`, SYDNEY)[0]);
    expect([...starts]).toEqual(['2024-05-09T14:00:00.000Z', '2024-05-10T14:00:00.000Z']);
  });
});

describe('fixedTime spans in a zone that is not UTC', () => {
  it('today on the day summer time starts is 23 hours long and ends now', () => {
    expect(span('today', '2024-03-31T10:00:00Z')).toEqual(['2024-03-30T23:00:00.000Z', '2024-03-31T10:00:00.001Z']);
  });

  it('yesterday after the autumn change is the 25-hour day', () => {
    expect(span('yesterday', '2024-10-28T09:00:00Z')).toEqual(['2024-10-26T22:00:00.000Z', '2024-10-27T23:00:00.000Z']);
  });

  it('an hour repeated by the autumn change is one hour long each time', () => {
    expect(span('thisHour', '2024-10-27T01:45:00Z')).toEqual(['2024-10-27T01:00:00.000Z', '2024-10-27T01:45:00.001Z']);
    expect(span('lastHour', '2024-10-27T01:45:00Z')).toEqual(['2024-10-27T00:00:00.000Z', '2024-10-27T01:00:00.000Z']);
  });

  it('minutes', () => {
    expect(span('thisMinute', '2024-05-10T12:30:20.500Z')).toEqual(['2024-05-10T12:30:00.000Z', '2024-05-10T12:30:20.501Z']);
    expect(span('lastMinute', '2024-05-10T12:30:20.500Z')).toEqual(['2024-05-10T12:29:00.000Z', '2024-05-10T12:30:00.000Z']);
  });

  it('weeks start on Monday, Sunday weeks on Sunday, also on a Sunday and across a month', () => {
    // 2024-03-31 is a Sunday.
    expect(span('thisWeek', '2024-03-31T10:00:00Z')[0]).toBe('2024-03-24T23:00:00.000Z');
    expect(span('thisSunWeek', '2024-03-31T10:00:00Z')[0]).toBe('2024-03-30T23:00:00.000Z');
    expect(span('lastWeek', '2024-03-31T10:00:00Z')).toEqual(['2024-03-17T23:00:00.000Z', '2024-03-24T23:00:00.000Z']);
    expect(span('lastSunWeek', '2024-04-01T10:00:00Z')).toEqual(['2024-03-23T23:00:00.000Z', '2024-03-30T23:00:00.000Z']);
    // Monday 2024-04-01 00:30 in Berlin is still Sunday in UTC.
    expect(span('thisWeek', '2024-03-31T22:30:00Z')[0]).toBe('2024-03-31T22:00:00.000Z');
    expect(span('thisWeek', '2024-03-31T22:30:00Z', 'UTC')[0]).toBe('2024-03-25T00:00:00.000Z');
  });

  it('months and years across the turn of the year', () => {
    expect(span('thisMonth', '2024-01-15T12:00:00Z')[0]).toBe('2023-12-31T23:00:00.000Z');
    expect(span('lastMonth', '2024-01-15T12:00:00Z')).toEqual(['2023-11-30T23:00:00.000Z', '2023-12-31T23:00:00.000Z']);
    expect(span('lastMonth', '2024-03-15T12:00:00Z')).toEqual(['2024-01-31T23:00:00.000Z', '2024-02-29T23:00:00.000Z']);
    expect(span('thisYear', '2024-01-15T12:00:00Z')[0]).toBe('2023-12-31T23:00:00.000Z');
    expect(span('lastYear', '2024-01-15T12:00:00Z')).toEqual(['2022-12-31T23:00:00.000Z', '2023-12-31T23:00:00.000Z']);
    // 2024-12-31T23:30Z is already 2025 in Berlin.
    expect(span('thisYear', '2024-12-31T23:30:00Z')[0]).toBe('2024-12-31T23:00:00.000Z');
  });

  it('in the southern hemisphere, where summer time ends in April', () => {
    // Sydney: 2024-04-07 03:00 AEDT → 02:00 AEST, so that day is 25 hours long.
    expect(span('yesterday', '2024-04-08T02:00:00Z', SYDNEY)).toEqual(['2024-04-06T13:00:00.000Z', '2024-04-07T14:00:00.000Z']);
  });

  it('always has no start; an unknown zone gives no span', () => {
    expect(span('always', '2024-05-10T12:00:00Z')).toEqual([null, '2024-05-10T12:00:00.001Z']);
    expect(fixedTimeSpan('today', 0, 'Nowhere/Here')).toBeNull();
  });
});

describe('time expressions', () => {
  const resolve = (text: string, reference: string, now = reference, zone = BERLIN) =>
    iso(resolveTimeExpression(expression(text), at(reference), at(now), zone));

  it('`*` keeps the reference and a future result is clamped to now', () => {
    expect(resolve('*.*.* *:*:*', '2024-05-10T12:00:00.250Z')).toBe('2024-05-10T12:00:00.250Z');
    expect(resolve('*.*.* +1:*:*', '2024-05-10T12:00:00Z')).toBe('2024-05-10T12:00:00.000Z');
    expect(resolve('01.01.2030 00:00', '2024-05-10T12:00:00Z')).toBe('2024-05-10T12:00:00.000Z');
  });

  it('absolute fields are wall-clock times of the zone, seconds default to 0 after an absolute minute', () => {
    expect(resolve('01.03.2024 00:00', '2024-05-10T12:00:00Z')).toBe('2024-02-29T23:00:00.000Z');
    expect(resolve('*.*.* 08:30', '2024-05-10T12:00:00Z')).toBe('2024-05-10T06:30:00.000Z');
  });

  it('offsets come first, then absolute fields', () => {
    // one day back, then 18:00 of that day
    expect(resolve('-1.*.* 18:00', '2024-05-10T10:00:00Z')).toBe('2024-05-09T16:00:00.000Z');
    // at 00:30, one hour back is the previous day; `*` keeps that day, then minute 0
    expect(resolve('*.*.* -1:00', '2024-05-10T22:30:00Z')).toBe('2024-05-10T21:00:00.000Z');
  });

  it('a day offset across the spring change keeps the wall time, an hour offset is exact', () => {
    expect(resolve('-1.*.* *:*:*', '2024-03-31T10:00:00Z')).toBe('2024-03-30T11:00:00.000Z');
    expect(resolve('*.*.* -24:*:*', '2024-03-31T10:00:00Z')).toBe('2024-03-30T10:00:00.000Z');
  });

  it('month offsets clamp the day; year offsets across a leap day', () => {
    expect(resolve('*.-1.* *:*:*', '2024-03-31T10:00:00Z')).toBe('2024-02-29T11:00:00.000Z'); // 12:00 CEST → 12:00 CET
    expect(resolve('*.*.-1 *:*:*', '2024-02-29T11:00:00Z')).toBe('2023-02-28T11:00:00.000Z');
    expect(resolve('*.-13.* *:*:*', '2024-01-15T11:00:00Z')).toBe('2022-12-15T11:00:00.000Z');
  });

  it('an absolute day past the end of the month is its last day', () => {
    expect(resolve('31.*.* 00:00', '2024-04-10T10:00:00Z', '2024-12-01T00:00:00Z')).toBe('2024-04-29T22:00:00.000Z');
  });

  it('refuses malformed expressions and fields out of range', () => {
    for (const text of ['', 'today', '1.1.2024', '01.13.2024 00:00', '00.01.2024 00:00', '01.01.2024 12:60', '01.01.2024 1:2:3:4']) {
      expect(readTimeExpression(text).ok).toBe(false);
    }
    expect(readTimeExpression('1.1.2024 0:00').ok).toBe(true);
  });
});

describe('continuousOccurrence windows', () => {
  it('are consecutive from the start, the last cut at the end', () => {
    expect(windowsOf({ from: 0, to: 250 }, 100, 10)).toEqual([
      { from: 0, to: 100 },
      { from: 100, to: 200 },
      { from: 200, to: 250 },
    ]);
    expect(windowsOf({ from: 0, to: 200 }, 100, 10)).toHaveLength(2);
  });

  it('refuse an open start and too many windows', () => {
    expect(windowsOf({ from: -Infinity, to: 10 }, 1, 10)).toBeNull();
    expect(windowsOf({ from: 0, to: 1000 }, 1, 10)).toBeNull();
  });
});
