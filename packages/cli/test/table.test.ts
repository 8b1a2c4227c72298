import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { readTestFile } from '../src/offline/testing/read-test-file';
import { runTests, type TestOptions } from '../src/offline/testing/test-command';
import { bufferedOutput } from '../src/output/streams';
import { policyXml, temporaryDirectory } from './support/cli';

/** Only hr may export, and nobody more than 10 at once. */
const EXPORT = policyXml(
  'urn:policy:acme:export',
  `<mechanism event="urn:action:acme:export">
    <if><greater><event:number eventParameter="amount" default="0"/><constant:number value="10"/></greater><then><inhibit/></then></if>
    <elseif><equals><event:string eventParameter="role" default=""/><constant:string value="hr"/></equals><then><allow/></then></elseif>
    <else><inhibit/></else>
  </mechanism>`,
);

// The row `sales, big` expects the wrong decision: it is the one failure.
const TABLE = `policies: [export.xml]
tests:
  - table: export by role and amount
    event:
      actionId: { scope: acme, action: export }
      timestamp: 1795424400000
      parameters: { role: $role, amount: $amount, note: $$role }
    columns: [name, role, amount, allowed]
    rows:
      - [hr small, hr, 3, true]
      - [hr big, hr, 11, false]
      - { name: sales small, role: sales, amount: 3, allowed: false }
      - [sales big, sales, 11, true]
`;

const OPTIONS: TestOptions = { junit: null, coverage: false, verbose: false };

function folder(text: string): { directory: string; file: string } {
  const directory = temporaryDirectory();
  writeFileSync(path.join(directory, 'export.xml'), EXPORT);
  const file = path.join(directory, 'table.test.yaml');
  writeFileSync(file, text);
  return { directory, file };
}

describe('tables of tests', () => {
  it('report each row as its own test, named `<table>: <row>`, failures at the row', async () => {
    const { directory, file } = folder(TABLE);
    const output = bufferedOutput(false);
    expect(await runTests([directory], OPTIONS, output)).toBe(1);
    expect(output.stdout).toEqual([
      file,
      '  ok    export by role and amount: hr small',
      '  ok    export by role and amount: hr big',
      '  ok    export by role and amount: sales small',
      `  FAIL  export by role and amount: sales big (${file}:13)`,
      '        expect.allowed: expected true, got false',
      '        decided: {"eventAllowed":false,"modifiers":[],"delay":0}',
      '3 passed, 1 failed',
    ]);
  });

  it('fill each row into the event with the type of its value, `$$` writing a `$` of its own', () => {
    const read = readTestFile('t.test.yaml', TABLE);
    if (!read.ok) throw new Error(JSON.stringify(read.problems));
    const [first] = read.file.tests;
    expect(first?.table).toEqual({ name: 'export by role and amount', row: 'hr small' });
    expect(first !== undefined && 'event' in first ? first.event.parameters : undefined).toEqual([
      { name: 'role', value: { value: 'hr', type: 'java.lang.String', isComplex: false } },
      { name: 'amount', value: { value: 3, type: 'java.lang.Double', isComplex: false } },
      { name: 'note', value: { value: '$role', type: 'java.lang.String', isComplex: false } },
    ]);
    expect(read.file.tests.map((test) => [test.path, test.line, test.expect])).toEqual([
      ['tests[0].rows[0]', 10, { allowed: true }],
      ['tests[0].rows[1]', 11, { allowed: false }],
      ['tests[0].rows[2]', 12, { allowed: false }],
      ['tests[0].rows[3]', 13, { allowed: true }],
    ]);
  });

  it('show rows in --verbose, JSON and JUnit, and --run picks rows by their name', async () => {
    const { directory, file } = folder(TABLE);
    const verbose = bufferedOutput(false);
    await runTests([directory], { ...OPTIONS, verbose: true }, verbose);
    const failed = verbose.stdout.indexOf(`  FAIL  export by role and amount: sales big (${file}:13)`);
    expect(verbose.stdout.slice(failed + 3, failed + 5)).toEqual([
      '        explanation:',
      '          `urn:policy:acme:export` mechanism 1 (`urn:action:acme:export`): took `if`, outcome inhibit',
    ]);

    const json = bufferedOutput(false);
    const junitFile = path.join(directory, 'junit.xml');
    expect(await runTests([directory], { ...OPTIONS, format: 'json', junit: junitFile }, json)).toBe(1);
    const report = JSON.parse(json.stdout.join('\n')) as { files: Array<{ tests: Array<Record<string, unknown>> }>; passed: number; failed: number };
    expect(report.files[0]?.tests.map((test) => [test.name, test.table, test.row, test.line, test.status])).toEqual([
      ['export by role and amount: hr small', 'export by role and amount', 'hr small', 10, 'passed'],
      ['export by role and amount: hr big', 'export by role and amount', 'hr big', 11, 'passed'],
      ['export by role and amount: sales small', 'export by role and amount', 'sales small', 12, 'passed'],
      ['export by role and amount: sales big', 'export by role and amount', 'sales big', 13, 'failed'],
    ]);
    expect(report.files[0]?.tests[3]?.differences).toEqual([{ path: 'expect.allowed', message: 'expected true, got false' }]);
    expect([report.passed, report.failed]).toEqual([3, 1]);
    const junit = readFileSync(junitFile, 'utf8');
    expect(junit).toContain('<testsuite name="' + file + '" tests="4" failures="1" errors="0"');
    expect(junit).toContain('<testcase name="export by role and amount: sales big"');

    const picked = bufferedOutput(false);
    expect(await runTests([directory], { ...OPTIONS, run: 'SMALL' }, picked)).toBe(0);
    expect(picked.stdout.slice(1)).toEqual(['  ok    export by role and amount: hr small', '  ok    export by role and amount: sales small', '2 passed, 0 failed']);
  });

  it('refuse a placeholder that names no column, an unused column, a missing name column and a short row, each once', () => {
    const read = readTestFile(
      't.test.yaml',
      `policies: [export.xml]
tests:
  - table: t
    event: { actionId: { scope: acme, action: export }, timestamp: 1, parameters: { role: $rol, amount: $amount } }
    columns: [name, role, amount, allowed, spare]
    rows:
      - [a, hr, 1, true, x]
      - [b, hr, 1]
  - table: without names
    event: { actionId: { scope: acme, action: export }, timestamp: 1, parameters: { role: $role } }
    columns: [role]
    expect: { allowed: true }
    rows: [[hr]]
  - table: mistakes shared by every row
    event: { actionId: { scope: acme, action: export }, timestamp: soon, parameters: { role: $role } }
    columns: [name, role, allowed]
    rows:
      - [a, hr, true]
      - [b, sales, maybe]
      - [c, sales, false]
`,
    );
    expect(read.ok).toBe(false);
    if (read.ok) return;
    expect(read.problems.map((p) => `${p.line}:${p.column} ${p.message}`)).toEqual([
      '4:91 tests[0].event.parameters.role: `$rol` names no column (did you mean `$role`?); write `$$` for a `$` of its own',
      '5:44 tests[0].columns[4]: the column `spare` is used nowhere: no `$spare` in the table',
      '11:14 tests[1].columns: needs a column `name`: it names the test of each row',
      // Reported once, at the first row, although every row has it.
      '18:9 tests[2].rows[0].event.timestamp: must be an integer of at least 0, found the string `soon`',
      '19:9 tests[2].rows[1].expect.allowed: must be true or false, found the string `maybe`',
    ]);
    // The short row of the first table is not read: the table's own problems stop it.
    expect(read.problems.some((p) => p.message.includes('has 3 values'))).toBe(false);
  });

  it('refuses a row with too few values, a mapping row without a column, and a table without an `allowed` column or an expect', () => {
    const read = readTestFile(
      't.test.yaml',
      `policies: [export.xml]
tests:
  - table: t
    event: { actionId: { scope: acme, action: export }, timestamp: 1, parameters: { role: $role } }
    columns: [name, role, allowed]
    rows:
      - [a, hr]
      - { name: b, role: hr }
  - table: u
    event: { actionId: { scope: acme, action: export }, timestamp: 1, parameters: { role: $role } }
    columns: [name, role]
    rows: [[a, hr]]
`,
    );
    expect(read.ok ? [] : read.problems.map((p) => `${p.line}:${p.column} ${p.message}`)).toEqual([
      '7:9 tests[0].rows[0]: has 2 values, the table 3 columns (name, role, allowed)',
      '8:9 tests[0].rows[1]: needs `allowed`',
      '11:14 tests[1].columns: needs a column `allowed` (the decision each row expects), or the table an `expect` that uses its columns',
    ]);
  });
});
