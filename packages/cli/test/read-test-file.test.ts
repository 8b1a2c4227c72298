import path from 'node:path';
import { readTestFile } from '../src/offline/testing/read-test-file';
import type { TestCase } from '../src/offline/testing/test-file';

/** The event of an event test; none for a tick. */
const eventOf = (test: TestCase | undefined) => (test !== undefined && 'event' in test ? test.event : undefined);

const EVENT = `{ actionId: { scope: acme, action: show }, timestamp: 1000, parameters: [{ name: user, value: { value: ann } }] }`;

describe('reading a test file', () => {
  it('reads a complete file, resolving policies against its directory and filling defaults', () => {
    const read = readTestFile(
      path.join('suite', 'a.test.yaml'),
      `policies: [../policies/p.xml, local]
settings: { defaultDecision: inhibit, timeZone: Europe/Berlin }
pips:
  - { method: urn:info:acme:role, parameters: { user: ann }, value: hr }
  - { method: urn:info:acme:role, fail: true }
pxps: [{ action: urn:action:acme:approve, answer: true }]
tests:
  - name: first
    event: ${EVENT}
    history: [{ actionId: { urn: 'urn:action:acme:show' }, timestamp: 999 }]
    expect:
      allowed: false
      delay: 5
      modifiers: [{ name: user, expression: $.x, engine: [{ method: delete }] }]
      executes: [urn:action:acme:notify, { action: urn:action:acme:log, parameters: { n: 1 } }]
`,
    );
    if (!read.ok) throw new Error(JSON.stringify(read.problems));
    const file = read.file;
    expect(file.policies.map((p) => [p.path, p.written, p.line])).toEqual([
      [path.join('policies', 'p.xml'), '../policies/p.xml', 1],
      [path.join('suite', 'local'), 'local', 1],
    ]);
    expect(file.settings).toEqual({ defaultDecision: 'inhibit', timeZone: 'Europe/Berlin', solutions: new Map() });
    expect(file.pips).toEqual([
      { method: 'urn:info:acme:role', parameters: { user: 'ann' }, value: 'hr', fail: false },
      { method: 'urn:info:acme:role', parameters: null, value: undefined, fail: true },
    ]);
    expect(file.pxps).toEqual([{ action: 'urn:action:acme:approve', answer: true }]);
    const [test] = file.tests;
    expect(test?.name).toBe('first');
    expect(test?.line).toBe(8);
    expect(eventOf(test)).toEqual({
      actionId: { scope: 'acme', action: 'show' },
      timestamp: 1000,
      // The wire's optional parts get the pdp's reading: informational type, not complex.
      parameters: [{ name: 'user', value: { value: 'ann', type: 'java.lang.Object', isComplex: false } }],
    });
    expect(test?.history).toEqual([{ actionId: { urn: 'urn:action:acme:show' }, timestamp: 999, parameters: [] }]);
    expect(test?.expect).toEqual({
      allowed: false,
      delay: 5,
      modifiers: [{ name: 'user', expression: '$.x', engine: [{ method: 'delete' }] }],
      executes: [
        { action: 'urn:action:acme:notify', parameters: null },
        { action: 'urn:action:acme:log', parameters: { n: 1 } },
      ],
    });
  });

  it('takes the pdp defaults when settings are left out', () => {
    const read = readTestFile('a.test.yaml', `policies: [p.xml]\ntests:\n  - { name: t, event: ${EVENT}, expect: { allowed: true } }\n`);
    expect(read.ok && read.file.settings).toEqual({ defaultDecision: 'allow', timeZone: 'UTC', solutions: new Map() });
  });

  it('locates YAML syntax errors with the line and column of the yaml library', () => {
    const read = readTestFile('bad.test.yaml', 'policies: [p.xml]\ntests: []\npolicies: [q.xml]\n');
    expect(read.ok).toBe(false);
    if (read.ok) return;
    // The second `policies` key, at the start of line 3.
    expect(read.problems.map(({ file, line, column }) => ({ file, line, column }))).toEqual([{ file: 'bad.test.yaml', line: 3, column: 1 }]);
    expect(read.problems[0]?.message).toContain('unique');
    const unclosed = readTestFile('bad.test.yaml', 'policies: [p.xml]\ntests:\n  - name: "unclosed\n');
    // A quote left open runs to the end of the text, where the yaml library reports it.
    expect(unclosed.ok === false && unclosed.problems).toEqual([{ file: 'bad.test.yaml', line: 4, column: 1, message: 'missing closing "quote' }]);
  });

  it('names the path inside the file and where it is written for every shape problem', () => {
    const text = `policies: []
settings: { timeZone: Mars/Base }
tests:
  - name: t
    event: { actionId: { scope: ACME, action: show }, timestamp: 1.5 }
    expect: { allowed: "yes", surprise: 1 }
  - name: t
    event: ${EVENT}
    history: [{ actionId: { scope: acme, action: show }, timestamp: 2000 }]
    expect: { allowed: true, executes: [nonsense], modifiers: [{ name: user, engine: [] }] }
`;
    const read = readTestFile('shape.test.yaml', text);
    expect(read.ok).toBe(false);
    if (read.ok) return;
    const messages = read.problems.map((p) => `${p.line}:${p.column} ${p.message}`);
    expect(messages).toEqual([
      '1:11 policies: names no policy',
      '2:23 settings.timeZone: `Mars/Base` is not an IANA time zone',
      '5:33 tests[0].event.actionId.scope: `ACME` is not a solution: use lower-case letters, digits, `.`, `_` and `-`',
      '5:66 tests[0].event.timestamp: must be an integer of at least 0, found the number `1.5`',
      '6:24 tests[0].expect.allowed: must be true or false, found the string `yes`',
      '6:41 tests[0].expect.surprise: unknown key `surprise`; expected `allowed`, `modifiers`, `delay`, `executes`',
      '9:69 tests[1].history[0].timestamp: is after the test\'s event (1000); history holds earlier events',
      '10:41 tests[1].expect.executes[0]: `nonsense` is not an action; expected `urn:action:<solution>:<name>`',
      '10:86 tests[1].expect.modifiers[0].engine: must hold exactly one engine, as every modifier on the wire does',
    ]);
  });

  it('applies the wire rules of POST /event: unique parameter names, a bounded nesting depth', () => {
    const deep = `${'['.repeat(70)}${']'.repeat(70)}`;
    const text = `policies: [p.xml]
tests:
  - name: t
    event:
      actionId: { scope: acme, action: show }
      timestamp: 1
      parameters:
        - { name: a, value: { value: 1 } }
        - { name: a, value: { value: 2 } }
    expect: { allowed: true }
  - name: u
    event:
      actionId: { scope: acme, action: show }
      timestamp: 1
      parameters: [{ name: deep, value: { value: '${deep}', isComplex: true } }]
    expect: { allowed: true }
`;
    const read = readTestFile('wire.test.yaml', text);
    expect(read.ok).toBe(false);
    if (read.ok) return;
    expect(read.problems.map((p) => [p.line, p.message])).toEqual([
      [9, 'tests[0].event.parameters[1].name: repeats the name of parameters[0]'],
      [15, 'tests[1].event.parameters[0].value.value: is nested deeper than 64 levels'],
    ]);
  });

  it('refuses duplicate test names, missing parts, stubs without an answer and an empty file', () => {
    const read = readTestFile(
      'x.test.yaml',
      `policies: [p.xml]
pips: [{ method: urn:info:acme:role }]
tests:
  - { name: same, event: ${EVENT}, expect: { allowed: true } }
  - { name: same, event: ${EVENT}, expect: { allowed: true } }
  - { name: lonely }
`,
    );
    expect(read.ok).toBe(false);
    if (read.ok) return;
    expect(read.problems.map((p) => p.message)).toEqual([
      'pips[0]: needs `value` (the answer) or `fail: true`',
      'tests[1].name: repeats the name of tests[0]',
      'tests[2]: needs `expect`',
      'tests[2]: needs `event` (an event to decide) or `tick` (a timer at an instant)',
    ]);
    const empty = readTestFile('empty.test.yaml', '');
    expect(empty.ok === false && empty.problems.map((p) => p.message)).toEqual(['the file is empty; it needs `policies` and `tests`']);
  });

  it('reads parameters in the short form, typed as the SDK types them, in events and history alike', () => {
    const text = `policies: [p.xml]
tests:
  - name: short
    history:
      - { actionId: { scope: acme, action: show }, timestamp: 1, parameters: { user: { id: ann } } }
    event:
      actionId: { scope: acme, action: show }
      timestamp: 2
      parameters: { user: { id: ann }, amount: 3, tags: [a, b], urgent: true, note: hi, nothing: null }
    expect: { allowed: true }
`;
    const read = readTestFile('short.test.yaml', text);
    if (!read.ok) throw new Error(JSON.stringify(read.problems));
    const [test] = read.file.tests;
    expect(eventOf(test)?.parameters).toEqual([
      { name: 'user', value: { value: { id: 'ann' }, type: 'java.lang.Object', isComplex: true } },
      { name: 'amount', value: { value: 3, type: 'java.lang.Double', isComplex: false } },
      { name: 'tags', value: { value: ['a', 'b'], type: 'java.util.ArrayList', isComplex: true } },
      { name: 'urgent', value: { value: true, type: 'java.lang.Boolean', isComplex: false } },
      { name: 'note', value: { value: 'hi', type: 'java.lang.String', isComplex: false } },
      { name: 'nothing', value: { value: null, type: 'java.lang.Object', isComplex: false } },
    ]);
    expect(test?.history[0]?.parameters).toEqual([{ name: 'user', value: { value: { id: 'ann' }, type: 'java.lang.Object', isComplex: true } }]);
  });

  it('applies the nesting limit of POST /event to short parameters too', () => {
    const deep = `${'['.repeat(70)}${']'.repeat(70)}`;
    const read = readTestFile('deep.test.yaml', `policies: [p.xml]\ntests:\n  - { name: d, event: { actionId: { scope: acme, action: show }, timestamp: 1, parameters: { deep: ${deep} } }, expect: { allowed: true } }\n`);
    expect(read.ok === false && read.problems.map((p) => p.message)).toEqual(['tests[0].event.parameters.deep: is nested deeper than 64 levels']);
  });

  it('names the key a misspelt one was meant to be, and reports nothing that only follows from the typo', () => {
    const read = readTestFile('typo.test.yaml', `polices: [p.xml]\ntests:\n  - { name: t, event: ${EVENT}, expect: { allowed: true, dealy: 5 } }\n`);
    expect(read.ok === false && read.problems.map((p) => p.message)).toEqual([
      // Read on as `policies`: no `needs policies` follows from the typo.
      'polices: unknown key `polices`; did you mean `policies`?',
      'tests[0].expect.dealy: unknown key `dealy`; did you mean `delay`?',
    ]);
  });
});
