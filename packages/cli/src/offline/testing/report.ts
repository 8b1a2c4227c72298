import { show } from './compare';
import type { CaseOutcome } from './run-test-case';

/** `N passed, N failed`: the last line of every run, for people and for scripts. */
export function summaryLine(passed: number, failed: number): string {
  return `${passed} passed, ${failed} failed`;
}

/**
 * The diff of a failed test: one line per difference (path inside the test: expected, got), then what was decided
 * in the wire shape and any mechanism errors (which inhibit). Empty when the test passed.
 */
export function failureLines(outcome: CaseOutcome): string[] {
  if (outcome.differences.length === 0) return [];
  const { actual } = outcome;
  const lines = outcome.differences.map((difference) => `${difference.path}: ${difference.message}`);
  lines.push(`decided: ${show({ eventAllowed: actual.allowed, modifiers: actual.modifiers, delay: actual.delay })}`);
  if (actual.executes.length > 0) {
    lines.push(`executes: ${actual.executes.map((call) => `\`${call.action}\` ${show(call.parameters)}${call.planned ? '' : ' (in a condition)'}`).join(', ')}`);
  }
  for (const error of actual.errors) lines.push(`mechanism error: ${error}`);
  return lines;
}
