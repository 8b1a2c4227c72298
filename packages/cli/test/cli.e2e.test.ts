import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { custos, EXAMPLES, temporaryDirectory } from './support/cli';

/** The last non-empty line of an output. */
const lastLine = (text: string) => text.trimEnd().split('\n').pop();

/** A copy of examples/ to break on purpose. */
function examplesCopy(): string {
  const directory = path.join(temporaryDirectory(), 'examples');
  cpSync(EXAMPLES, directory, { recursive: true });
  return directory;
}

function edit(file: string, from: string, to: string): void {
  const text = readFileSync(file, 'utf8');
  if (!text.includes(from)) throw new Error(`${file} does not contain ${from}`);
  writeFileSync(file, text.replace(from, to));
}

describe('custos (built, as a child process)', () => {
  it('node packages/cli/bin/custos.js --help prints the offline commands', () => {
    const top = custos(['--help']);
    expect(top.status).toBe(0);
    expect(top.stdout).toContain('policy');
    const policy = custos(['policy', '--help']);
    expect(policy.status).toBe(0);
    expect(policy.stdout).toMatch(/check \[options\] <paths\.\.\.>/);
    expect(policy.stdout).toMatch(/test \[options\] \[paths\.\.\.\]/);
  });

  it('answers 2 for an unknown option or a bad choice', () => {
    expect(custos(['policy', 'check', '--format', 'xml', 'examples']).status).toBe(2);
    expect(custos(['policy', 'test', '--no-such-option']).status).toBe(2);
  });
});

describe('custos policy check', () => {
  it('accepts the example policies and timer', () => {
    const run = custos(['policy', 'check', 'examples']);
    expect(run.status).toBe(0);
    expect(run.stdout.trim()).toBe('7 files checked, 0 invalid, 0 problems');
  });

  it('lists every problem as path:line:column: message and answers 1', () => {
    const directory = examplesCopy();
    const policy = path.join(directory, 'policies', 'export-limit.xml');
    edit(policy, '<allow/>', '<allow/><inhibit/>');
    edit(policy, 'id="urn:policy:acme:export-limit"', 'id="urn:policy:acme:mask-salary"');
    const run = custos(['policy', 'check', directory]);
    expect(run.status).toBe(1);
    const lines = run.stdout.trim().split('\n');
    const allowLine = readFileSync(policy, 'utf8').split('\n').findIndex((line) => line.includes('<allow/><inhibit/>')) + 1;
    expect(lines).toContain(`${policy}:${allowLine}:15: \`allow\` and \`inhibit\` cannot be combined in one decision`);
    expect(lastLine(run.stdout)).toBe('7 files checked, 1 invalid, 1 problem');
  });

  it('reports an id used twice in one run, as pap would refuse the second', () => {
    const directory = examplesCopy();
    edit(path.join(directory, 'policies', 'payroll-weekdays.xml'), 'urn:policy:acme:payroll-weekdays', 'urn:policy:acme:mask-salary');
    const run = custos(['policy', 'check', path.join(directory, 'policies', 'mask-salary.xml'), path.join(directory, 'policies', 'payroll-weekdays.xml')]);
    expect(run.status).toBe(1);
    expect(run.stdout).toContain(
      `${path.join(directory, 'policies', 'payroll-weekdays.xml')}: id \`urn:policy:acme:mask-salary\` is already used by \`${path.join(directory, 'policies', 'mask-salary.xml')}\``,
    );
  });

  it('prints JSON with --format json', () => {
    const run = custos(['policy', 'check', '--format', 'json', 'examples/policies/mask-salary.xml', 'examples/policies/nightly-purge.timer.xml']);
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({
      valid: true,
      files: [
        { file: 'examples/policies/mask-salary.xml', kind: 'policy', id: 'urn:policy:acme:mask-salary', valid: true, problems: [] },
        { file: 'examples/policies/nightly-purge.timer.xml', kind: 'timer', id: 'urn:timer:acme:nightly-purge', valid: true, problems: [] },
      ],
      errors: [],
    });
  });

  it('answers 2 for a path that does not exist or a directory without policies', () => {
    const missing = custos(['policy', 'check', 'examples/no-such.xml']);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain('examples/no-such.xml: no such file or directory');
    const empty = custos(['policy', 'check', temporaryDirectory()]);
    expect(empty.status).toBe(2);
    expect(empty.stderr).toContain('no `*.xml` files found');
  });
});

describe('custos policy test', () => {
  it('passes the examples', () => {
    const run = custos(['policy', 'test', 'examples']);
    // The one test that checks the default decision sends an action on purpose that no policy reacts to.
    expect(run.stderr).toBe(
      "examples/tests/payroll.test.yaml:38: warning: test `with the whitelisting default, actions no policy names are refused`: no mechanism of the file's policies reacts to `urn:action:acme:delete-everything`, so the default decision answers\n",
    );
    expect(run.status).toBe(0);
    expect(run.stdout.split('\n')).toContain('24 passed, 0 failed');
    expect(lastLine(run.stdout)).toBe('24 passed, 0 failed');
    expect(run.stdout).toContain('  ok    the fourth export of the day is refused and security is told');
  });

  it('searches the current directory when no path is given', () => {
    const run = custos(['policy', 'test'], { cwd: path.join(EXAMPLES, 'tests') });
    expect(run.status).toBe(0);
    expect(lastLine(run.stdout)).toBe('24 passed, 0 failed');
  });

  it('fails a broken copy with 1 and shows what differs', () => {
    const directory = examplesCopy();
    // Raise the export limit from 3 to 4: the fourth export is now allowed and nobody is told.
    edit(path.join(directory, 'policies', 'export-limit.xml'), '<constant:number value="3"/>', '<constant:number value="4"/>');
    const run = custos(['policy', 'test', directory]);
    expect(run.status).toBe(1);
    expect(lastLine(run.stdout)).toBe('23 passed, 1 failed');
    const testFile = path.join(directory, 'tests', 'export-limit.test.yaml');
    expect(run.stdout).toContain(`  FAIL  the fourth export of the day is refused and security is told (${testFile}:30)`);
    expect(run.stdout).toContain('        expect.allowed: expected false, got true');
    expect(run.stdout).toContain('        expect.executes[0]: expected a call of `urn:action:acme:notify-security`, got none');
    expect(run.stdout).toContain('        decided: {"eventAllowed":true,"modifiers":[],"delay":0}');
  });

  it('shows a modifier difference down to the parameter value', () => {
    const directory = examplesCopy();
    edit(path.join(directory, 'policies', 'mask-salary.xml'), 'value="***"', 'value="hidden"');
    const run = custos(['policy', 'test', path.join(directory, 'tests', 'mask-salary.test.yaml'), '--verbose']);
    expect(run.status).toBe(1);
    expect(run.stdout).toContain('expect.modifiers[0].engine[0].parameters[replaceWith].value.value: expected "***", got "hidden"');
    // --verbose: the explanation of the failed event.
    expect(run.stdout).toContain('explanation:');
    expect(run.stdout).toContain('`urn:policy:acme:mask-salary` mechanism 1 (`urn:action:acme:show-employee`): took `elseif 1`, outcome allow');
    // Both values of each comparison, where each came from.
    expect(run.stdout).toContain('    if: equals(pip `urn:info:acme:role` = "staff", "hr") → false');
    expect(run.stdout).toContain('    elseif 1: equals(event `viewer` at `$.department` = "sales", event `employee` at `$.department` = "sales") → true');
    expect(run.stdout).toContain('pip `urn:info:acme:role` {"user":"sam"} → "staff"');
  });

  it('answers 2 with the place of the problem for an invalid test file, and still runs the others', () => {
    const directory = examplesCopy();
    edit(path.join(directory, 'tests', 'payroll.test.yaml'), 'allowed: true\n      executes:\n        - action: urn:action:acme:audit-log\n          parameters: { operator: olga }', 'allowed: maybe');
    const run = custos(['policy', 'test', directory]);
    expect(run.status).toBe(2);
    const file = path.join(directory, 'tests', 'payroll.test.yaml');
    expect(run.stdout).toContain(`${file}: cannot run, the test file or a policy it names is invalid`);
    expect(run.stdout).toMatch(new RegExp(`${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\\d+:\\d+: tests\\[0\\]\\.expect\\.allowed: must be true or false, found the string \`maybe\``));
    expect(lastLine(run.stdout)).toBe('20 passed, 0 failed');
  });

  it('answers 2 with file:line:column of a problem in a policy a test file names', () => {
    const directory = examplesCopy();
    const policy = path.join(directory, 'policies', 'payroll-weekdays.xml');
    edit(policy, '<day value="Saturday,Sunday"/>', '<day value="Caturday"/>');
    const run = custos(['policy', 'test', path.join(directory, 'tests', 'payroll.test.yaml')]);
    expect(run.status).toBe(2);
    const dayLine = readFileSync(policy, 'utf8').split('\n').findIndex((line) => line.includes('Caturday')) + 1;
    expect(run.stdout).toMatch(new RegExp(`  ${policy.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:${dayLine}:\\d+: .*Caturday`));
  });

  it('reports branch coverage and writes JUnit XML', () => {
    const directory = examplesCopy();
    // Without the test of another department, the `else` of mask-salary is never reached.
    const tests = path.join(directory, 'tests', 'mask-salary.test.yaml');
    const text = readFileSync(tests, 'utf8');
    const start = text.indexOf('  - name: someone from another department sees nothing');
    const end = text.indexOf('  - name: without an answer from the role PIP');
    writeFileSync(tests, text.slice(0, start) + text.slice(end));
    // The table of who-sees-what reaches that `else` too.
    rmSync(path.join(directory, 'tests', 'who-sees-what.test.yaml'));
    // The test that remains with an inhibit (a failing PIP) goes to the else too; change its department to reach elseif instead.
    edit(tests, "value: { value: { id: hana, department: hr }, type: com.acme.User, isComplex: true }\n        - name: employee\n          value: { value: { id: e7, department: sales, salary: 5200 }", "value: { value: { id: hana, department: sales }, type: com.acme.User, isComplex: true }\n        - name: employee\n          value: { value: { id: e7, department: sales, salary: 5200 }");
    edit(tests, "          value: { value: { id: e7, department: sales, salary: 5200 }, type: com.acme.Employee, isComplex: true }\n    expect:\n      allowed: false", "          value: { value: { id: e7, department: sales, salary: 5200 }, type: com.acme.Employee, isComplex: true }\n    expect:\n      allowed: true");
    const junit = path.join(temporaryDirectory(), 'report.xml');
    const run = custos(['policy', 'test', directory, '--coverage', '--junit', junit]);
    expect(run.status).toBe(0);
    const policy = path.join(directory, 'policies', 'mask-salary.xml');
    const elseLine = readFileSync(policy, 'utf8').split('\n').findIndex((line) => line.includes('<else>')) + 1;
    expect(run.stdout).toContain('coverage: 11 of 12 branches reached');
    expect(run.stdout).toContain(`  urn:policy:acme:mask-salary (${policy}): 2/3`);
    expect(run.stdout).toContain(`    ${policy}:${elseLine}:5: mechanism 1 (\`urn:action:acme:show-employee\`): \`else\` never reached`);
    const xml = readFileSync(junit, 'utf8');
    expect(xml).toContain('<testsuites name="custos policy test" tests="18" failures="0" errors="0"');
    expect(xml).toContain(`<testsuite name="${path.join(directory, 'tests', 'export-limit.test.yaml')}" tests="4" failures="0" errors="0"`);
  });

  it('writes failures into the JUnit report', () => {
    const directory = examplesCopy();
    edit(path.join(directory, 'policies', 'export-limit.xml'), '<constant:number value="3"/>', '<constant:number value="4"/>');
    const junit = path.join(temporaryDirectory(), 'report.xml');
    expect(custos(['policy', 'test', directory, '--junit', junit]).status).toBe(1);
    const xml = readFileSync(junit, 'utf8');
    expect(xml).toContain('tests="24" failures="1" errors="0"');
    expect(xml).toContain('<failure message="expect.allowed: expected false, got true">expect.allowed: expected false, got true');
  });

  it('answers 2 when there is nothing to run or the report cannot be written', () => {
    const empty = custos(['policy', 'test', temporaryDirectory()]);
    expect(empty.status).toBe(2);
    expect(empty.stderr).toContain('no `*.test.yaml` files found');
    const unwritable = custos(['policy', 'test', 'examples', '--junit', path.join(temporaryDirectory(), 'missing', 'report.xml')]);
    expect(unwritable.status).toBe(2);
    expect(unwritable.stderr).toContain('cannot be written');
  });
});
