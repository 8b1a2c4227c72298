import { excerpt } from '../diagnostics';
import { readNumberText } from './literals';
import { readOk, readProblem, type ReadResult } from './read-result';

/** `<delay unit>` values and their length in milliseconds (policy-language.md §7). */
export const DELAY_UNITS: ReadonlyMap<string, number> = new Map([
  ['MILLISECONDS', 1],
  ['SECONDS', 1_000],
  ['MINUTES', 60_000],
  ['HOURS', 3_600_000],
]);

function readDelayAmount(text: string): ReadResult<number> {
  const amount = readNumberText(text);
  if (!amount.ok) return amount;
  return amount.value < 0 ? readProblem(`\`${excerpt(text)}\` is negative`) : amount;
}

/** The delay in whole milliseconds; fractions of a millisecond are rounded. */
export function readDelayMilliseconds(amountText: string, unitText: string): ReadResult<number> {
  const amount = readDelayAmount(amountText);
  if (!amount.ok) return amount;
  const factor = DELAY_UNITS.get(unitText);
  if (factor === undefined) return readProblem(`\`${excerpt(unitText)}\` is not a delay unit`);
  const milliseconds = Math.round(amount.value * factor);
  return milliseconds <= Number.MAX_SAFE_INTEGER
    ? readOk(milliseconds)
    : readProblem(`\`${excerpt(amountText)}\` ${unitText.toLowerCase()} is too long a delay`);
}
