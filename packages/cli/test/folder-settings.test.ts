import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { runTests } from '../src/offline/testing/test-command';
import { bufferedOutput } from '../src/output/streams';
import { policyXml, temporaryDirectory } from './support/cli';

/**
 * `policy test` decides as the pdp would with the solutions' settings pap holds: a folder's `custos.settings.yaml`
 * says them for every test below it, a test file's `settings` override it.
 */
const ALLOW_A = '<mechanism event="urn:action:acme:a"><if><constant:true/><then><allow/></then></if></mechanism>';
const OPTIONS = { junit: null, coverage: false, verbose: false } as const;

const unmatched = (name: string, solution: string, allowed: boolean) =>
  `  - { name: ${name}, event: { actionId: { scope: ${solution}, action: nothing-speaks-of-it }, timestamp: 1 }, expect: { allowed: ${allowed} } }`;

function folder(settings: string): string {
  const directory = temporaryDirectory();
  mkdirSync(path.join(directory, 'tests', 'nested'), { recursive: true });
  writeFileSync(path.join(directory, 'p.xml'), policyXml('urn:policy:acme:p', ALLOW_A));
  writeFileSync(path.join(directory, 'custos.settings.yaml'), settings);
  return directory;
}

describe('solution settings in policy tests', () => {
  it("decides an unmatched action with its solution's default from the folder, other solutions with the pdp's", async () => {
    const directory = folder('solutions:\n  acme: { defaultDecision: inhibit }\n');
    writeFileSync(
      path.join(directory, 'tests', 'defaults.test.yaml'),
      `policies: [../p.xml]\ntests:\n${unmatched('acme inhibits', 'acme', false)}\n${unmatched('beta allows', 'beta', true)}\n`,
    );
    // A file's own settings win over the folder's, solution by solution.
    writeFileSync(
      path.join(directory, 'tests', 'nested', 'override.test.yaml'),
      `policies: [../../p.xml]\nsettings:\n  defaultDecision: inhibit\n  solutions: { acme: { defaultDecision: allow } }\n` +
        `tests:\n${unmatched('acme allows here', 'acme', true)}\n${unmatched('beta takes the pdp default of this file', 'beta', false)}\n`,
    );
    const output = bufferedOutput(false);
    expect(await runTests([path.join(directory, 'tests')], OPTIONS, output)).toBe(0);
    expect(output.stdout.at(-1)).toBe('4 passed, 0 failed');
  });

  it('fails a test that expects the default the solution does not have', async () => {
    const directory = folder('solutions:\n  acme: { defaultDecision: inhibit }\n');
    writeFileSync(path.join(directory, 'tests', 'wrong.test.yaml'), `policies: [../p.xml]\ntests:\n${unmatched('acme allows?', 'acme', true)}\n`);
    const output = bufferedOutput(false);
    expect(await runTests([directory], OPTIONS, output)).toBe(1);
    expect(output.stdout).toContain('        expect.allowed: expected true, got false');
  });

  it('refuses a folder settings file that is wrong, with where, and runs none of its tests', async () => {
    const directory = folder('solutions:\n  acme: { defaultDecision: deny }\n');
    writeFileSync(path.join(directory, 'tests', 'any.test.yaml'), `policies: [../p.xml]\ntests:\n${unmatched('any', 'acme', false)}\n`);
    const output = bufferedOutput(false);
    expect(await runTests([directory], OPTIONS, output)).toBe(2);
    expect(output.stdout).toContain(
      `  ${path.join(directory, 'custos.settings.yaml')}:2:28: solutions.acme.defaultDecision: must be one of \`allow\`, \`inhibit\`, found the string \`deny\``,
    );
    expect(output.stdout.at(-1)).toBe('0 passed, 0 failed');
  });
});
