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
});
