import type { LocatedProblem } from '../../output/located';
import type { PolicyCoverage } from './coverage';
import { isPassed, resultFailure, type SuiteResult } from './report';

/**
 * `policy test --format json`: the run as one document, for tools. Each test (each row of a table) with its name,
 * the table and row it comes from, where it is written, `passed` or `failed`, the differences and what was decided
 * (for a tick: whether and when the timer fires and the decision on each fired event), and with `--verbose` the
 * explanation; the files that could not run with their problems; the coverage when asked; the totals.
 */
export function jsonReport(results: readonly SuiteResult[], broken: ReadonlyArray<{ file: string; problems: LocatedProblem[] }>, coverage: PolicyCoverage[] | null, verbose: boolean): unknown {
  const files = results.map((suite) => ({
    file: suite.file,
    tests: suite.tests.map((result) => {
      const { test, outcome } = result;
      const base = {
        name: test.name,
        ...(test.table === undefined ? {} : { table: test.table.name, row: test.table.row }),
        ...(test.line === undefined ? {} : { line: test.line }),
        status: isPassed(result) ? 'passed' : 'failed',
        seconds: Number(result.seconds.toFixed(3)),
      };
      if ('crash' in outcome) return { ...base, error: outcome.crash, failure: resultFailure(outcome) };
      const explanation = verbose ? { explanation: outcome.explanation } : {};
      if ('tick' in outcome) {
        const fired = outcome.fired.map(({ event, actual, explanation: why }) => ({ event, decided: actual, ...(verbose ? { explanation: why } : {}) }));
        return { ...base, differences: outcome.differences, tick: outcome.tick, fired };
      }
      return { ...base, differences: outcome.differences, decided: outcome.actual, ...explanation };
    }),
  }));
  const passed = results.reduce((sum, suite) => sum + suite.tests.filter(isPassed).length, 0);
  const total = results.reduce((sum, suite) => sum + suite.tests.length, 0);
  return {
    files,
    invalid: broken.map((item) => ({ file: item.file, problems: item.problems })),
    ...(coverage === null ? {} : { coverage }),
    passed,
    failed: total - passed,
  };
}
