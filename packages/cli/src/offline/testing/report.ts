import { show } from './compare';
import type { JunitSuite } from './junit';
import type { CaseOutcome } from './run-test-case';
import { tickLines, type TickOutcome } from './run-tick';
import type { ActualOutcome, TestCase } from './test-file';
import { formatExplanation } from './trace';

/** What running one test gave: an event's decision, a tick's, or a crash of the runner (which fails the test). */
export type TestOutcome = CaseOutcome | TickOutcome | { crash: string };

export interface TestResult {
  test: TestCase;
  outcome: TestOutcome;
  seconds: number;
}

/** One test file's results, in the order its tests (and the rows of its tables) are written. */
export interface SuiteResult {
  file: string;
  tests: TestResult[];
}

/** `N passed, N failed`: the last line of every run, for people and for scripts. */
export function summaryLine(passed: number, failed: number): string {
  return `${passed} passed, ${failed} failed`;
}

export const isPassed = (result: TestResult): boolean => !('crash' in result.outcome) && result.outcome.differences.length === 0;

/** The failure of a test as lines (empty when it passed): a crash, or its diff. */
export function resultFailure(outcome: TestOutcome): string[] {
  return 'crash' in outcome ? [`error: ${outcome.crash}`] : failureLines(outcome);
}

/**
 * The diff of a failed test: one line per difference (path inside the test: expected, got), then what was decided
 * in the wire shape and any mechanism errors (which inhibit); for a tick, per fired event. Empty when it passed.
 */
export function failureLines(outcome: CaseOutcome | TickOutcome): string[] {
  if (outcome.differences.length === 0) return [];
  const lines = outcome.differences.map((difference) => `${difference.path}: ${difference.message}`);
  if ('tick' in outcome) {
    for (const fired of outcome.fired) lines.push(...decidedLines(fired.actual).map((line) => `\`${actionOf(fired.event.actionId)}\` ${line}`));
    return lines;
  }
  return [...lines, ...decidedLines(outcome.actual)];
}

function decidedLines(actual: ActualOutcome): string[] {
  const lines = [`decided: ${show({ eventAllowed: actual.allowed, modifiers: actual.modifiers, delay: actual.delay })}`];
  if (actual.executes.length > 0) {
    lines.push(`executes: ${actual.executes.map((call) => `\`${call.action}\` ${show(call.parameters)}${call.planned ? '' : ' (in a condition)'}`).join(', ')}`);
  }
  for (const error of actual.errors) lines.push(`mechanism error: ${error}`);
  return lines;
}

const actionOf = (actionId: { urn: string } | { scope: string; action: string }) => ('urn' in actionId ? actionId.urn : `urn:action:${actionId.scope}:${actionId.action}`);

/**
 * A file's results as text: its name, then per test `ok` or `FAIL` with the diff (and with `verbose` the
 * explanation); a tick test shows what the timer did at its instant either way.
 */
export function suiteLines(suite: SuiteResult, verbose: boolean): string[] {
  const lines = [suite.file];
  for (const { test, outcome } of suite.tests) {
    const failure = resultFailure(outcome);
    const notes = 'tick' in outcome ? tickLines(outcome) : [];
    if (failure.length === 0) {
      lines.push(`  ok    ${test.name}`, ...notes.map((line) => `        ${line}`));
      continue;
    }
    lines.push(`  FAIL  ${test.name} (${suite.file}${test.line === undefined ? '' : `:${test.line}`})`);
    for (const line of [...notes, ...failure]) lines.push(`        ${line}`);
    if (verbose && 'tick' in outcome) {
      for (const fired of outcome.fired) {
        lines.push(`        explanation of \`${actionOf(fired.event.actionId)}\`:`);
        for (const line of formatExplanation(fired.explanation)) lines.push(`          ${line}`);
      }
    } else if (verbose && 'explanation' in outcome) {
      lines.push('        explanation:');
      for (const line of formatExplanation(outcome.explanation)) lines.push(`          ${line}`);
    }
  }
  return lines;
}

/** A file's results for JUnit: every test, each row of a table its own `testcase`. */
export function junitSuite(suite: SuiteResult): JunitSuite {
  return {
    name: suite.file,
    cases: suite.tests.map(({ test, outcome, seconds }) => {
      const failure = resultFailure(outcome);
      return failure.length === 0 ? { name: test.name, seconds } : { name: test.name, seconds, failure: { message: failure[0] ?? 'failed', text: failure.join('\n') } };
    }),
  };
}
