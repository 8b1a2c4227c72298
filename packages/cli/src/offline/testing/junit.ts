/** One test for the JUnit report. */
export interface JunitCase {
  name: string;
  /** Failure text (the diff); absent when the test passed. */
  failure?: { message: string; text: string };
  seconds: number;
}

/** One test file: its tests, or the problems that kept it from running. */
export interface JunitSuite {
  name: string;
  cases: JunitCase[];
  error?: { message: string; text: string };
}

/**
 * The results as JUnit XML, the form CI servers read: one `testsuite` per test file, one `testcase` per test; a
 * file that could not run is a suite with one `testcase` holding an `error`.
 */
export function junitXml(suites: readonly JunitSuite[]): string {
  const totals = { tests: 0, failures: 0, errors: 0, seconds: 0 };
  const body: string[] = [];
  for (const suite of suites) {
    const failures = suite.cases.filter((item) => item.failure !== undefined).length;
    const errors = suite.error === undefined ? 0 : 1;
    const tests = suite.cases.length + errors;
    const seconds = suite.cases.reduce((sum, item) => sum + item.seconds, 0);
    totals.tests += tests;
    totals.failures += failures;
    totals.errors += errors;
    totals.seconds += seconds;
    body.push(
      `  <testsuite name="${attribute(suite.name)}" tests="${tests}" failures="${failures}" errors="${errors}" skipped="0" time="${time(seconds)}">`,
    );
    if (suite.error !== undefined) {
      body.push(`    <testcase name="load ${attribute(suite.name)}" classname="${attribute(suite.name)}" time="0">`);
      body.push(`      <error message="${attribute(suite.error.message)}">${text(suite.error.text)}</error>`);
      body.push('    </testcase>');
    }
    for (const item of suite.cases) {
      const open = `    <testcase name="${attribute(item.name)}" classname="${attribute(suite.name)}" time="${time(item.seconds)}"`;
      if (item.failure === undefined) {
        body.push(`${open}/>`);
        continue;
      }
      body.push(`${open}>`);
      body.push(`      <failure message="${attribute(item.failure.message)}">${text(item.failure.text)}</failure>`);
      body.push('    </testcase>');
    }
    body.push('  </testsuite>');
  }
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="custos policy test" tests="${totals.tests}" failures="${totals.failures}" errors="${totals.errors}" time="${time(totals.seconds)}">`,
    ...body,
    '</testsuites>',
    '',
  ].join('\n');
}

const time = (seconds: number) => seconds.toFixed(3);

/** Characters XML 1.0 cannot hold at all (control characters other than tab and line breaks, lone surrogates). */
// eslint-disable-next-line no-control-regex -- these control characters are exactly what must be found
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

function text(value: string): string {
  return value.replace(NOT_XML, '\uFFFD').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function attribute(value: string): string {
  return text(value).replace(/"/g, '&quot;').replace(/\n/g, '&#10;').replace(/\r/g, '&#13;').replace(/\t/g, '&#9;');
}
