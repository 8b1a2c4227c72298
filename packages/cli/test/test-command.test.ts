import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { runTests, PROGRESS_THRESHOLD } from '../src/offline/testing/test-command';
import { bufferedOutput } from '../src/output/streams';
import { policyXml, temporaryDirectory } from './support/cli';

const ALLOW_A = '<mechanism event="urn:action:acme:a"><if><constant:true/><then><allow/></then></if></mechanism>';

/** A test directory with one policy and `count` tests, the last `failing` of which expect the wrong verdict. */
function suite(count: number, failing: number): string {
  const directory = temporaryDirectory();
  mkdirSync(path.join(directory, 'nested'));
  writeFileSync(path.join(directory, 'p.xml'), policyXml('urn:policy:acme:p', ALLOW_A));
  const tests = Array.from({ length: count }, (_, index) => {
    const allowed = index >= count - failing ? 'false' : 'true';
    return `  - { name: test ${index}, event: { actionId: { scope: acme, action: a }, timestamp: ${index} }, expect: { allowed: ${allowed} } }`;
  });
  writeFileSync(path.join(directory, 'nested', 'many.test.yaml'), `policies: [../p.xml]\ntests:\n${tests.join('\n')}\n`);
  return directory;
}

describe('the test command in process', () => {
  it('prints every result after the progress bar when a terminal shows many tests', async () => {
    const count = PROGRESS_THRESHOLD + 10;
    const output = bufferedOutput(true);
    const code = await runTests([suite(count, 2)], { junit: null, coverage: false, verbose: false }, output);
    expect(code).toBe(1);
    expect(output.stdout.filter((line) => line.startsWith('  ok    '))).toHaveLength(count - 2);
    expect(output.stdout.filter((line) => line.startsWith('  FAIL  '))).toHaveLength(2);
    expect(output.stdout[output.stdout.length - 1]).toBe(`${count - 2} passed, 2 failed`);
  });

  it('finds test files in nested directories and prints results file by file', async () => {
    const directory = suite(3, 0);
    const output = bufferedOutput(false);
    expect(await runTests([directory], { junit: null, coverage: false, verbose: false }, output)).toBe(0);
    expect(output.stdout).toEqual([path.join(directory, 'nested', 'many.test.yaml'), '  ok    test 0', '  ok    test 1', '  ok    test 2', '3 passed, 0 failed']);
  });

  it('runs only the tests --run names, by a fragment of the name or a /regular expression/', async () => {
    const directory = suite(12, 0);
    const fragment = bufferedOutput(false);
    expect(await runTests([directory], { junit: null, coverage: false, verbose: false, run: 'TEST 1' }, fragment)).toBe(0);
    expect(fragment.stdout.slice(1)).toEqual(['  ok    test 1', '  ok    test 10', '  ok    test 11', '3 passed, 0 failed']);
    const regex = bufferedOutput(false);
    expect(await runTests([directory], { junit: null, coverage: false, verbose: false, run: '/^test [23]$/' }, regex)).toBe(0);
    expect(regex.stdout.slice(1)).toEqual(['  ok    test 2', '  ok    test 3', '2 passed, 0 failed']);
    const none = bufferedOutput(false);
    expect(await runTests([directory], { junit: null, coverage: false, verbose: false, run: 'nothing like it' }, none)).toBe(2);
    expect(none.stderr).toEqual(['no test matches `nothing like it`']);
    const broken = bufferedOutput(false);
    expect(await runTests([directory], { junit: null, coverage: false, verbose: false, run: '/(/' }, broken)).toBe(2);
    expect(broken.stderr[0]).toMatch(/^--run `\/\(\/` is not a regular expression: /);
  });

  it('warns about a test whose action no mechanism reacts to, and refuses the file with --strict', async () => {
    const directory = temporaryDirectory();
    writeFileSync(path.join(directory, 'p.xml'), policyXml('urn:policy:acme:p', ALLOW_A.replace('acme:a"', 'acme:view-document"')));
    writeFileSync(
      path.join(directory, 'typo.test.yaml'),
      'policies: [p.xml]\ntests:\n  - name: misspelt\n    event: { actionId: { scope: acme, action: view-documnet }, timestamp: 0 }\n    expect: { allowed: true }\n',
    );
    const warned = bufferedOutput(false);
    expect(await runTests([directory], { junit: null, coverage: false, verbose: false }, warned)).toBe(0);
    const message =
      "test `misspelt`: no mechanism of the file's policies reacts to `urn:action:acme:view-documnet`, so the default decision answers; " +
      'did you mean `urn:action:acme:view-document`?';
    expect(warned.stderr).toEqual([`${path.join(directory, 'typo.test.yaml')}:3: warning: ${message}`]);
    expect(warned.stdout).toContain('  ok    misspelt');
    const strict = bufferedOutput(false);
    expect(await runTests([directory], { junit: null, coverage: false, verbose: false, strict: true }, strict)).toBe(2);
    expect(strict.stdout).toContain(`  ${path.join(directory, 'typo.test.yaml')}:3: ${message}`);
    expect(strict.stdout).not.toContain('  ok    misspelt');
  });

  it('prints the values a failed test compared with --verbose, mechanisms numbered from 1', async () => {
    const directory = temporaryDirectory();
    const mechanism =
      '<mechanism event="urn:action:acme:a"><if><equals><event:string eventParameter="user" jsonPathQuery="$.id" default=""/>' +
      '<constant:string value="bob"/></equals><then><allow/></then></if><else><inhibit/></else></mechanism>';
    writeFileSync(path.join(directory, 'p.xml'), policyXml('urn:policy:acme:p', mechanism));
    writeFileSync(
      path.join(directory, 'v.test.yaml'),
      'policies: [p.xml]\ntests:\n  - name: alice\n    event:\n      actionId: { scope: acme, action: a }\n      timestamp: 0\n' +
        '      parameters: [{ name: user, value: { value: { id: alice }, isComplex: true } }]\n    expect: { allowed: true }\n',
    );
    const output = bufferedOutput(false);
    expect(await runTests([directory], { junit: null, coverage: false, verbose: true }, output)).toBe(1);
    expect(output.stdout).toContain('          `urn:policy:acme:p` mechanism 1 (`urn:action:acme:a`): took `else`, outcome inhibit');
    expect(output.stdout).toContain('              if: equals(event `user` at `$.id` = "alice", "bob") → false');
  });
});

describe('coverage of a mechanism without else', () => {
  // Allowed when 1 / amount > 0; an amount of 0 makes the condition fail (division by zero).
  const MECHANISM =
    '<mechanism event="urn:action:acme:a"><if><greater><divide><constant:number value="1"/><event:number eventParameter="amount" default="1"/></divide>' +
    '<constant:number value="0"/></greater><then><allow/></then></if></mechanism>';
  const testLine = (name: string, parameters: string) =>
    `  - { name: ${name}, event: { actionId: { scope: acme, action: a }, timestamp: 0${parameters} }, expect: { allowed: true } }`;

  async function coverageOf(tests: string[]): Promise<string[]> {
    const directory = temporaryDirectory();
    writeFileSync(path.join(directory, 'p.xml'), policyXml('urn:policy:acme:p', MECHANISM));
    writeFileSync(path.join(directory, 'c.test.yaml'), `policies: [p.xml]\ntests:\n${tests.join('\n')}\n`);
    const output = bufferedOutput(false);
    await runTests([directory], { junit: null, coverage: true, verbose: false }, output);
    return output.stdout.filter((line) => /^coverage|^ {4}\S/.test(line));
  }

  it('reports its fall-through as a branch that a test which never falls through leaves uncovered', async () => {
    const lines = await coverageOf([testLine('positive', ', parameters: { amount: 2 }')]);
    expect(lines[0]).toBe('coverage: 1 of 2 branches reached');
    expect(lines[1]).toMatch(/^ {4}.*p\.xml:3:1: mechanism 1 \(`urn:action:acme:a`\): the fall-through \(no condition true, no `else`\) never reached$/);
  });

  it('counts the fall-through reached by a test whose conditions are all false, not by one whose condition failed', async () => {
    expect(await coverageOf([testLine('positive', ', parameters: { amount: 2 }'), testLine('negative', ', parameters: { amount: -2 }')])).toEqual([
      'coverage: 2 of 2 branches reached',
    ]);
    // Dividing by zero, the condition fails: the mechanism took no branch at all (and inhibits, failing closed).
    const failed = await coverageOf([testLine('positive', ', parameters: { amount: 2 }'), testLine('zero', ', parameters: { amount: 0 }')]);
    expect(failed[0]).toBe('coverage: 1 of 2 branches reached');
  });
});

describe('--format json', () => {
  it('prints one document: each test with its decision, and the files that cannot run with their problems', async () => {
    const directory = suite(2, 1);
    writeFileSync(path.join(directory, 'broken.test.yaml'), 'policies: [p.xml]\ntests:\n  - { name: b, event: { use: nothing }, expect: { allowed: true } }\n');
    const output = bufferedOutput(false);
    expect(await runTests([directory], { junit: null, coverage: false, verbose: false, format: 'json' }, output)).toBe(2);
    const report = JSON.parse(output.stdout.join('\n')) as {
      files: Array<{ file: string; tests: Array<{ name: string; status: string; decided: { allowed: boolean } }> }>;
      invalid: Array<{ file: string; problems: Array<{ line: number; column: number; message: string }> }>;
      passed: number;
      failed: number;
    };
    expect(report.files.map((file) => file.tests.map((test) => [test.name, test.status, test.decided.allowed]))).toEqual([
      [
        ['test 0', 'passed', true],
        ['test 1', 'failed', true],
      ],
    ]);
    expect(report.invalid).toEqual([
      { file: path.join(directory, 'broken.test.yaml'), problems: [{ file: path.join(directory, 'broken.test.yaml'), line: 3, column: 30, message: 'tests[0].event.use: unknown event fixture `nothing`; no event fixture is defined' }] },
    ]);
    expect([report.passed, report.failed]).toEqual([1, 1]);
  });
});
