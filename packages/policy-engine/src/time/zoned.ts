/**
 * Wall clock ↔ instant in an IANA zone, with nothing but `Intl` (no time-zone data of our own). Pure functions of
 * their arguments; formatters are cached per zone because creating one costs far more than using it.
 */
export interface WallClock {
  readonly year: number;
  /** 1–12 */
  readonly month: number;
  readonly day: number;
  readonly hour: number;
  readonly minute: number;
  readonly second: number;
  readonly millisecond: number;
}

const FORMATTERS = new Map<string, Intl.DateTimeFormat | null>();

/** Null for a zone `Intl` does not know. */
function formatter(timeZone: string): Intl.DateTimeFormat | null {
  let cached = FORMATTERS.get(timeZone);
  if (cached === undefined) {
    try {
      cached = new Intl.DateTimeFormat('en-US', {
        timeZone,
        hourCycle: 'h23',
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
        second: 'numeric',
        era: 'short',
      });
    } catch {
      // Intl refuses an unknown zone with a RangeError: an answer about the zone, reported by the caller.
      cached = null;
    }
    if (FORMATTERS.size > 64) FORMATTERS.clear();
    FORMATTERS.set(timeZone, cached);
  }
  return cached;
}

export function isKnownTimeZone(timeZone: string): boolean {
  return formatter(timeZone) !== null;
}

/** The wall clock of `instant` in `timeZone`, read by formatting it (a few µs); null for an unknown zone or an instant out of range. */
function formatWall(instant: number, timeZone: string): WallClock | null {
  const format = formatter(timeZone);
  if (format === null || !Number.isFinite(instant) || Math.abs(instant) > 8.64e15) return null;
  const fields: Record<string, number> = {};
  let bce = false;
  for (const part of format.formatToParts(instant)) {
    if (part.type === 'era') bce = part.value === 'BC' || part.value === 'B';
    else if (part.type !== 'literal') fields[part.type] = Number(part.value);
  }
  const year = fields.year ?? 0;
  return {
    year: bce ? 1 - year : year,
    month: fields.month ?? 1,
    day: fields.day ?? 1,
    hour: fields.hour ?? 0,
    minute: fields.minute ?? 0,
    second: fields.second ?? 0,
    millisecond: ((instant % 1000) + 1000) % 1000,
  };
}

const MINUTE = 60_000;

/**
 * Per zone, the minute (of UTC) the clock was last read in, and — once read a second time in it — the zone's offset
 * if it is the same at the minute's first and last millisecond. Offsets change only at a zone's transitions, and no
 * zone has two transitions within one minute, so the offset is then that all through the minute and the wall clock
 * of any instant in it is the instant plus the offset: a decision's "now" is read once per minute by Intl instead of
 * once per decision. Only for instants from 1970 on (decisions' clocks): before 1583, Intl's calendar is Julian and
 * an offset could not carry its dates.
 */
const MINUTES = new Map<string, { from: number; offset: number | null; checked: boolean }>();

/** The wall clock of `instant` in `timeZone`; null for an unknown zone or an instant out of range. */
export function wallClockOf(instant: number, timeZone: string): WallClock | null {
  if (!Number.isSafeInteger(instant) || instant < 0) return formatWall(instant, timeZone);
  const from = instant - (instant % MINUTE);
  const known = MINUTES.get(timeZone);
  if (known === undefined || known.from !== from) {
    const wall = formatWall(instant, timeZone);
    if (wall !== null) {
      if (known === undefined && MINUTES.size > 64) MINUTES.clear();
      MINUTES.set(timeZone, { from, offset: null, checked: false });
    }
    return wall;
  }
  if (!known.checked) {
    known.checked = true;
    const first = offsetAt(from, timeZone);
    if (first !== null && first === offsetAt(from + MINUTE - 1, timeZone)) known.offset = first;
  }
  return known.offset === null ? formatWall(instant, timeZone) : utcAsWall(instant + known.offset);
}

/** The wall clock read as if it were UTC: differences between two of these are wall-clock differences. */
export function wallAsUtc(wall: WallClock): number {
  const date = new Date(0);
  date.setUTCFullYear(wall.year, wall.month - 1, wall.day);
  date.setUTCHours(wall.hour, wall.minute, wall.second, wall.millisecond);
  return date.getTime();
}

export function utcAsWall(time: number): WallClock {
  const date = new Date(time);
  return {
    year: date.getUTCFullYear(),
    month: date.getUTCMonth() + 1,
    day: date.getUTCDate(),
    hour: date.getUTCHours(),
    minute: date.getUTCMinutes(),
    second: date.getUTCSeconds(),
    millisecond: date.getUTCMilliseconds(),
  };
}

/** Offset of the zone at `instant`, in ms (wall − UTC). */
function offsetAt(instant: number, timeZone: string): number | null {
  const wall = formatWall(instant, timeZone);
  return wall === null ? null : wallAsUtc(wall) - instant;
}

const HALF_DAY = 12 * 3_600_000;

/** instantOf's answers (bounded). */
const INSTANTS = new Map<string, number | null>();

/**
 * The instant at which the wall clock of `timeZone` shows `wall`. Where a daylight-saving change makes the wall time
 * ambiguous, the earlier instant; where it skips it, the instant after the gap at the same distance from the gap's
 * start (02:30 in a 02:00→03:00 gap is 03:30), as `Temporal`'s "compatible" disambiguation. So the start of a day
 * whose midnight is skipped is the first instant of that day. Null for an unknown zone.
 */
export function instantOf(wall: WallClock, timeZone: string): number | null {
  // A pure function of its arguments, asked for the same midnight by every decision of a day ("today"): remembered.
  const key = `${timeZone}\u0000${wall.year}-${wall.month}-${wall.day} ${wall.hour}:${wall.minute}:${wall.second}.${wall.millisecond}`;
  const remembered = INSTANTS.get(key);
  if (remembered !== undefined) return remembered;
  const instant = findInstant(wall, timeZone);
  if (INSTANTS.size >= 4096) INSTANTS.clear();
  INSTANTS.set(key, instant);
  return instant;
}


function findInstant(wall: WallClock, timeZone: string): number | null {
  const local = wallAsUtc(wall);
  const before = offsetAt(local - HALF_DAY, timeZone);
  const after = offsetAt(local + HALF_DAY, timeZone);
  if (before === null || after === null) return null;
  const valid = [local - before, local - after].filter((candidate) => offsetAt(candidate, timeZone) === local - candidate);
  if (valid.length > 0) return Math.min(...valid);
  return local - before;
}
