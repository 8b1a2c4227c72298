import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { readTestFile } from '../src/offline/testing/read-test-file';
import { runTests } from '../src/offline/testing/test-command';
import { bufferedOutput } from '../src/output/streams';
import { policyXml, temporaryDirectory } from './support/cli';

/** Export is allowed to hr and refused to anyone else; `amount` above 10 is refused whoever asks. */
const EXPORT = policyXml(
  'urn:policy:acme:export',
  `<mechanism event="urn:action:acme:export">
    <if><greater><event:number eventParameter="amount" default="0"/><constant:number value="10"/></greater><then><inhibit/></then></if>
    <elseif><equals><event:string eventParameter="user" jsonPathQuery="$.role" default=""/><constant:string value="hr"/></equals><then><allow/></then></elseif>
    <else><inhibit/></else>
  </mechanism>`,
);

const PEOPLE = `fixtures:
  values:
    hana: { id: hana, role: hr }
    sam: { id: sam, role: sales }
    team: [!fixture hana, !fixture sam]
  events:
    export:
      actionId: { scope: acme, action: export }
      timestamp: 1795424400000
      parameters: { user: !fixture hana, amount: 1 }
`;

function folder(files: Record<string, string>): string {
  const directory = temporaryDirectory();
  writeFileSync(path.join(directory, 'export.xml'), EXPORT);
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(directory, name), text);
  return directory;
}

const run = async (directory: string) => {
  const output = bufferedOutput(false);
  const code = await runTests([directory], { junit: null, coverage: false, verbose: false }, output);
  return { code, output };
};

describe('fixtures', () => {
  it('are defined once in a shared file and used by the tests of several files', async () => {
    const directory = folder({
      'people.fixtures.yaml': PEOPLE,
      'a.test.yaml': `policies: [export.xml]
include: [people.fixtures.yaml]
tests:
  - name: hana exports
    event: { use: export }
    expect: { allowed: true }
  - name: sam exports
    event: { use: export, parameters: { user: !fixture sam } }
    expect: { allowed: false }
`,
      'b.test.yaml': `policies: [export.xml]
include: [people.fixtures.yaml]
fixtures:
  values:
    lots: 11
tests:
  - name: hana exports too much
    event: { use: export, timestamp: 1795424500000, parameters: { amount: !fixture lots } }
    expect: { allowed: false }
`,
    });
    const { code, output } = await run(directory);
    expect(output.stderr).toEqual([]);
    expect(output.stdout).toEqual([
      path.join(directory, 'a.test.yaml'),
      '  ok    hana exports',
      '  ok    sam exports',
      path.join(directory, 'b.test.yaml'),
      '  ok    hana exports too much',
      '3 passed, 0 failed',
    ]);
    expect(code).toBe(0);
  });

  it('fill an event with `use`: its own actionId and timestamp win, its parameters replace those of the same name', () => {
    const directory = folder({ 'people.fixtures.yaml': PEOPLE });
    const read = readTestFile(
      path.join(directory, 'c.test.yaml'),
      `policies: [export.xml]
include: [people.fixtures.yaml]
tests:
  - name: t
    event: { use: export, timestamp: 7, parameters: { user: !fixture sam, members: !fixture team } }
    history: [{ use: export, timestamp: 5 }]
    expect: { allowed: false }
`,
    );
    if (!read.ok) throw new Error(JSON.stringify(read.problems));
    const [test] = read.file.tests;
    if (test === undefined || !('event' in test)) throw new Error('an event test was expected');
    expect(test.event.timestamp).toBe(7);
    expect(test.event.actionId).toEqual({ scope: 'acme', action: 'export' });
    expect(test.event.parameters?.map((p) => [p.name, p.value.value])).toEqual([
      ['user', { id: 'sam', role: 'sales' }],
      ['amount', 1],
      ['members', [{ id: 'hana', role: 'hr' }, { id: 'sam', role: 'sales' }]],
    ]);
    expect(test.history.map((event) => [event.timestamp, event.parameters?.map((p) => p.name)])).toEqual([[5, ['user', 'amount']]]);
  });

  it('report an unknown name with the file, line and column of the reference and the closest name', () => {
    const directory = folder({ 'people.fixtures.yaml': PEOPLE });
    const file = path.join(directory, 'd.test.yaml');
    const read = readTestFile(
      file,
      `policies: [export.xml]
include: [people.fixtures.yaml]
tests:
  - name: misspelt value
    event: { use: export, parameters: { user: !fixture hanna } }
    expect: { allowed: true }
  - name: misspelt event
    event: { use: exprot }
    expect: { allowed: true }
  - name: an event as a value
    event: { use: export, parameters: { user: !fixture export } }
    expect: { allowed: true }
  - name: a value as an event
    event: { use: sam }
    expect: { allowed: true }
  - name: no name
    event: { use: export, parameters: { user: !fixture } }
    expect: { allowed: true }
`,
    );
    expect(read.ok).toBe(false);
    if (read.ok) return;
    // Each at the name written after the tag or `use:`.
    expect(read.problems.map((p) => `${p.file === file ? '' : p.file}${p.line}:${p.column} ${p.message}`)).toEqual([
      '5:56 tests[0].event.parameters.user: unknown value fixture `hanna`; did you mean `hana`?',
      '8:19 tests[1].event.use: unknown event fixture `exprot`; did you mean `export`?',
      '11:56 tests[2].event.parameters.user: `export` is an event fixture; an event takes it with `use: export`, `!fixture` names value fixtures',
      '14:19 tests[3].event.use: `sam` is a value fixture; `use` names event fixtures, a value is written `!fixture sam`',
      '17:56 tests[4].event.parameters.user: `!fixture` needs the name of a value fixture',
    ]);
  });

  it('report problems of an included file in that file, a second definition of a name, a cycle, a missing file and an unknown tag', () => {
    const directory = folder({
      'broken.fixtures.yaml': `fixtures:
  values:
    ann: { id: ann, boss: !fixture bob }
    bob: { id: bob, boss: !fixture ann }
    eve: { id: eve, friend: !fixture mallory }
`,
      'twice.fixtures.yaml': 'fixtures:\n  values:\n    hana: { id: hana }\n',
      'nothing.fixtures.yaml': 'values: {}\n',
    });
    const file = path.join(directory, 'e.test.yaml');
    const read = readTestFile(
      file,
      `policies: [export.xml]
include: [broken.fixtures.yaml, twice.fixtures.yaml, nothing.fixtures.yaml, gone.fixtures.yaml]
fixtures:
  values:
    hana: { id: hana, role: hr }
tests:
  - name: t
    event: { actionId: { scope: acme, action: export }, timestamp: 1, parameters: { user: !fixture hana } }
    expect: { allowed: true }
`,
    );
    expect(read.ok).toBe(false);
    if (read.ok) return;
    const broken = path.join(directory, 'broken.fixtures.yaml');
    const nothing = path.join(directory, 'nothing.fixtures.yaml');
    expect(read.problems.map((p) => `${path.basename(p.file)}:${p.line}:${p.column} ${p.message}`)).toEqual([
      `broken.fixtures.yaml:4:36 fixtures.values.bob.boss: the fixture \`ann\` refers to itself (ann → bob → ann)`,
      'broken.fixtures.yaml:5:38 fixtures.values.eve.friend: unknown value fixture `mallory`; the value fixtures are `ann`, `bob`, `eve`',
      'nothing.fixtures.yaml:1:1 needs `fixtures`',
      'nothing.fixtures.yaml:1:9 values: unknown key `values`; expected `fixtures`',
      `e.test.yaml:2:77 include[3]: \`gone.fixtures.yaml\` (${path.join(directory, 'gone.fixtures.yaml')}): no such file or directory`,
      `e.test.yaml:5:11 fixtures.values.hana: the fixture \`hana\` is already defined in ${path.join(directory, 'twice.fixtures.yaml')}:3; each name is defined once`,
    ]);
    expect([broken, nothing].every((name) => read.problems.some((p) => p.file === name))).toBe(true);

    const tagged = readTestFile(file, 'policies: [export.xml]\ntests:\n  - name: t\n    event: { use: !fixtur export }\n    expect: { allowed: true }\n');
    expect(tagged.ok ? [] : tagged.problems.map((p) => `${p.line}:${p.column} ${p.message}`)).toEqual(['4:19 unknown tag `!fixtur`; did you mean `!fixture`?']);
    const onMapping = readTestFile(file, 'policies: [export.xml]\ntests:\n  - name: t\n    event: !fixture { use: export }\n    expect: { allowed: true }\n');
    expect(onMapping.ok ? [] : onMapping.problems.map((p) => p.message)).toEqual(['`!fixture` stands before a name (`!fixture ann`), not before a mapping or a list']);
  });

  it('make a test file with an unknown fixture unrunnable (exit 2), the others still run', async () => {
    const directory = folder({
      'people.fixtures.yaml': PEOPLE,
      'good.test.yaml': 'policies: [export.xml]\ninclude: [people.fixtures.yaml]\ntests:\n  - { name: ok, event: { use: export }, expect: { allowed: true } }\n',
      'bad.test.yaml': 'policies: [export.xml]\ninclude: [people.fixtures.yaml]\ntests:\n  - { name: bad, event: { use: exports }, expect: { allowed: true } }\n',
    });
    const { code, output } = await run(directory);
    expect(code).toBe(2);
    expect(output.stdout).toContain('  ok    ok');
    expect(output.stdout).toContain(`  ${path.join(directory, 'bad.test.yaml')}:4:32: tests[0].event.use: unknown event fixture \`exports\`; did you mean \`export\`?`);
  });
});

describe('a refused event fixture', () => {
  it('is reported where it is written, and the tests using it add nothing to that', () => {
    const read = readTestFile(
      'f.test.yaml',
      `policies: [export.xml]
fixtures:
  events:
    export:
      actionId: { scope: ACME, action: export }
tests:
  - { name: a, event: { use: export, timestamp: 1 }, expect: { allowed: true } }
  - { name: b, event: { use: export, timestamp: 2 }, expect: { allowed: true } }
`,
    );
    expect(read.ok ? [] : read.problems.map((p) => `${p.line}:${p.column} ${p.message}`)).toEqual([
      '5:26 fixtures.events.export.actionId.scope: `ACME` is not a solution: use lower-case letters, digits, `.`, `_` and `-`',
    ]);
  });
});
