import { excerpt } from '../diagnostics';
import { readOk, readProblem, type ReadResult } from '../parse/read-result';

/** The years a Quartz year field can name. */
export const FIRST_YEAR = 1970;
export const LAST_YEAR = 2099;

/**
 * The optional seventh field of a Quartz expression: `*` (or `?`), a year, a range `2027-2030`, a step `2027/2` or
 * `2027-2035/4` (a step after `*` counts from 1970), and lists of these. Returns the years it allows, ascending, or
 * null when it allows every year. cron-parser has no year field, so the engine filters its fire times by these years.
 */
export function readYearField(field: string): ReadResult<readonly number[] | null> {
  if (field === '*' || field === '?') return readOk(null);
  const years = new Set<number>();
  for (const item of field.split(',')) {
    const read = readYearItem(item);
    if (!read.ok) return read;
    for (const year of read.value) years.add(year);
  }
  return readOk([...years].sort((a, b) => a - b));
}

function readYearItem(item: string): ReadResult<number[]> {
  const slash = item.indexOf('/');
  const range = slash === -1 ? item : item.slice(0, slash);
  let step = 1;
  if (slash !== -1) {
    const stepText = item.slice(slash + 1);
    if (!/^\d{1,3}$/.test(stepText) || Number(stepText) < 1) {
      return readProblem(`the year step \`${excerpt(item)}\` needs a whole number of at least 1 after \`/\``);
    }
    step = Number(stepText);
  }
  let first: number;
  let last: number;
  if (range === '*') {
    first = FIRST_YEAR;
    last = LAST_YEAR;
  } else {
    const bounds = range.split('-');
    if (bounds.length > 2) return readProblem(`the year \`${excerpt(item)}\` is not a year, a range of years or a step`);
    const years: number[] = [];
    for (const bound of bounds) {
      const year = readYear(bound);
      if (!year.ok) return year;
      years.push(year.value);
    }
    first = years[0] ?? FIRST_YEAR;
    // `2027/2` runs to the last year, as in Quartz; a lone `2027` is that year only.
    last = years[1] ?? (slash === -1 ? first : LAST_YEAR);
    if (last < first) return readProblem(`the year range \`${excerpt(item)}\` ends before it starts`);
  }
  const years: number[] = [];
  for (let year = first; year <= last; year += step) years.push(year);
  return readOk(years);
}

function readYear(text: string): ReadResult<number> {
  if (!/^\d{4}$/.test(text) || Number(text) < FIRST_YEAR || Number(text) > LAST_YEAR) {
    return readProblem(`\`${excerpt(text)}\` is not a year from ${FIRST_YEAR} to ${LAST_YEAR}`);
  }
  return readOk(Number(text));
}
