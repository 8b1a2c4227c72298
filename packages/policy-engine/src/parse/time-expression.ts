import { excerpt } from '../diagnostics';
import { readOk, readProblem, type ReadResult } from './read-result';

/** One field of a time expression: absolute, the reference's own value (`*`), or an offset from it (`+n`/`-n`). */
export type TimeField = { readonly kind: 'absolute'; readonly value: number } | { readonly kind: 'current' } | { readonly kind: 'relative'; readonly offset: number };

/** `DD.MM.YYYY hh:mm:ss` of `start`/`end` (policy-language.md §6), field by field. */
export interface TimeExpression {
  readonly day: TimeField;
  readonly month: TimeField;
  readonly year: TimeField;
  readonly hour: TimeField;
  readonly minute: TimeField;
  readonly second: TimeField;
}

const FIELD = String.raw`(\*|[+-]\d{1,6}|\d{1,4})`;
const EXPRESSION = new RegExp(String.raw`^${FIELD}\.${FIELD}\.${FIELD}\s+${FIELD}:${FIELD}(?::${FIELD})?$`);

const RANGES: ReadonlyArray<readonly [keyof TimeExpression, number, number]> = [
  ['day', 1, 31],
  ['month', 1, 12],
  ['year', 1, 9999],
  ['hour', 0, 23],
  ['minute', 0, 59],
  ['second', 0, 59],
];

/**
 * Omitted seconds are 0 when the minute is absolute (`10:30` is 10:30:00) and the reference's seconds otherwise
 * (`*:*` keeps them), so an expression means what it reads as.
 */
export function readTimeExpression(text: string): ReadResult<TimeExpression> {
  const match = EXPRESSION.exec(text.trim());
  if (match === null) {
    return readProblem(
      `\`${excerpt(text)}\` is not a time expression \`DD.MM.YYYY hh:mm:ss\` (each field a number, \`*\`, \`+n\` or \`-n\`; seconds optional)`,
    );
  }
  const fields: Partial<Record<keyof TimeExpression, TimeField>> = {};
  for (const [index, [name, low, high]] of RANGES.entries()) {
    const raw = match[index + 1];
    if (raw === undefined) {
      fields[name] = fields.minute?.kind === 'absolute' ? { kind: 'absolute', value: 0 } : { kind: 'current' };
      continue;
    }
    const field = readField(raw);
    if (field.kind === 'absolute' && (field.value < low || field.value > high)) {
      return readProblem(`\`${excerpt(text)}\`: the ${name} \`${raw}\` is not between ${low} and ${high}`);
    }
    fields[name] = field;
  }
  return readOk(fields as TimeExpression);
}

function readField(raw: string): TimeField {
  if (raw === '*') return { kind: 'current' };
  if (raw.startsWith('+') || raw.startsWith('-')) return { kind: 'relative', offset: Number(raw) };
  return { kind: 'absolute', value: Number(raw) };
}

/** `when/@fixedTime` values (policy-language.md §6). */
export const FIXED_TIMES = [
  'thisMinute', 'lastMinute', 'thisHour', 'lastHour', 'today', 'yesterday', 'thisWeek', 'lastWeek',
  'thisSunWeek', 'lastSunWeek', 'thisMonth', 'lastMonth', 'thisYear', 'lastYear', 'always',
] as const;
export type FixedTime = (typeof FIXED_TIMES)[number];
