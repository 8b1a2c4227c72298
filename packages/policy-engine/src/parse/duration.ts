import { excerpt } from '../diagnostics';
import { readOk, readProblem, type ReadResult } from './read-result';

const SECOND = 1_000;
const DAY = 86_400 * SECOND;

/** Units of `ttl` and `interval` (policy-language.md §6, §8), largest first; a year is 365 days, a day 24 hours. */
const UNITS: ReadonlyArray<readonly [string, number]> = [
  ['y', 365 * DAY],
  ['w', 7 * DAY],
  ['d', DAY],
  ['h', 3_600 * SECOND],
  ['m', 60 * SECOND],
  ['s', SECOND],
];

const DURATION = /^(?:(\d{1,9})y)?(?:(\d{1,9})w)?(?:(\d{1,9})d)?(?:(\d{1,9})h)?(?:(\d{1,9})m)?(?:(\d{1,9})s)?$/;

/**
 * `1y2w3d4h5m6s`: each unit at most once, in this order, at least one. Exact lengths, not calendar ones, so an
 * interval of `1d` is always 24 hours, also across a daylight-saving change.
 */
export function readDuration(text: string): ReadResult<number> {
  const match = DURATION.exec(text);
  if (text === '' || match === null) {
    return readProblem(`\`${excerpt(text)}\` is not a duration like \`1y2w3d4h5m6s\` (units y, w, d, h, m, s in this order)`);
  }
  let total = 0;
  UNITS.forEach(([, length], index) => {
    const amount = match[index + 1];
    if (amount !== undefined) total += Number(amount) * length;
  });
  return total <= Number.MAX_SAFE_INTEGER ? readOk(total) : readProblem(`\`${excerpt(text)}\` is too long a duration`);
}

export function readPositiveDuration(text: string): ReadResult<number> {
  const read = readDuration(text);
  if (!read.ok) return read;
  return read.value > 0 ? read : readProblem(`\`${excerpt(text)}\` must be longer than zero`);
}
