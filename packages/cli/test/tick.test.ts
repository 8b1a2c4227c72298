import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { readTestFile } from '../src/offline/testing/read-test-file';
import { runTests, type TestOptions } from '../src/offline/testing/test-command';
import { bufferedOutput } from '../src/output/streams';
import { policyXml, temporaryDirectory } from './support/cli';

const PIP = 'http://www.mydata-control.de/4.0/pip';

/** Purging is refused under a legal hold (a PIP) and logged otherwise; the report needs an export earlier today. */
const POLICY = policyXml(
  'urn:policy:acme:nightly',
  `<mechanism event="urn:action:acme:purge">
    <if><pip:boolean xmlns:pip="${PIP}" method="urn:info:acme:legal-hold" default="false"/><then><inhibit/></then></if>
    <else><allow/><execute action="urn:action:acme:log"><parameter:string name="what"><event:string eventParameter="olderThan" default=""/></parameter:string></execute></else>
  </mechanism>
  <mechanism event="urn:action:acme:report">
    <if><greater><count><eventOccurrence event="urn:action:acme:export"/><when fixedTime="today"/></count><constant:number value="0"/></greater><then><allow/></then></if>
    <else><inhibit/></else>
  </mechanism>`,
);

/** Every night at 02:00, on the wall clock of the test file's time zone: a purge, then a report. */
const TIMER = `<timer xmlns="http://www.mydata-control.de/4.0/mydataLanguageTimer" xmlns:parameter="http://www.mydata-control.de/4.0/parameter"
       id="urn:timer:acme:nightly" cron="0 0 2 * * ?">
  <event action="urn:action:acme:purge"><parameter:string name="olderThan" value="P1D"/></event>
  <event action="urn:action:acme:report"/>
</timer>`;

// 02:00 in Berlin on Saturday 28 November 2026 is 01:00 UTC.
const BERLIN_2AM = '2026-11-28T02:00:00+01:00';
const EXPORT_AT_MIDNIGHT = '{ actionId: { scope: acme, action: export }, timestamp: 1795820400000 }';

function folder(tests: string): { directory: string; file: string } {
  const directory = temporaryDirectory();
  mkdirSync(path.join(directory, 'policies'));
  writeFileSync(path.join(directory, 'policies', 'nightly.xml'), POLICY);
  writeFileSync(path.join(directory, 'policies', 'nightly.timer.xml'), TIMER);
  const file = path.join(directory, 'nightly.test.yaml');
  writeFileSync(file, `policies: [policies]\nsettings: { timeZone: Europe/Berlin }\ntests:\n${tests}`);
  return { directory, file };
}

const OPTIONS: TestOptions = { junit: null, coverage: false, verbose: false };

describe('timer ticks', () => {
  it('fire the timer at the instant and show each event it fires and its decision, with the history and stubs of the test', async () => {
    const { directory, file } = folder(`  - name: the nightly run after an export
    history: [${EXPORT_AT_MIDNIGHT}]
    tick: { timer: urn:timer:acme:nightly, at: '${BERLIN_2AM}' }
    expect: { allowed: true, executes: [{ action: urn:action:acme:log, parameters: { what: P1D } }] }
  - name: under a legal hold nothing is purged
    history: [${EXPORT_AT_MIDNIGHT}]
    tick: { timer: urn:timer:acme:nightly, at: '${BERLIN_2AM}' }
    pips: [{ method: urn:info:acme:legal-hold, value: true }]
    expect: { allowed: false }
`);
    const output = bufferedOutput(false);
    expect(await runTests([directory], OPTIONS, output)).toBe(1);
    expect(output.stdout).toEqual([
      file,
      '  ok    the nightly run after an export',
      '        `urn:timer:acme:nightly` fires at 2026-11-28T01:00:00.000Z:',
      '          `urn:action:acme:purge` {"olderThan":"P1D"}: allowed, execute `urn:action:acme:log` {"what":"P1D"}',
      '          `urn:action:acme:report` {}: allowed',
      `  FAIL  under a legal hold nothing is purged (${file}:8)`,
      '        `urn:timer:acme:nightly` fires at 2026-11-28T01:00:00.000Z:',
      '          `urn:action:acme:purge` {"olderThan":"P1D"}: inhibited',
      '          `urn:action:acme:report` {}: allowed',
      // The expectation holds for every fired event: the report is allowed, so the test fails there.
      '        expect.allowed: `urn:action:acme:report`: expected false, got true',
      '        `urn:action:acme:purge` decided: {"eventAllowed":false,"modifiers":[],"delay":0}',
      '        `urn:action:acme:report` decided: {"eventAllowed":true,"modifiers":[],"delay":0}',
      '1 passed, 1 failed',
    ]);

    // --verbose explains each fired event of the failed tick on its own.
    const verbose = bufferedOutput(false);
    await runTests([directory], { ...OPTIONS, verbose: true }, verbose);
    const purge = verbose.stdout.indexOf('        explanation of `urn:action:acme:purge`:');
    expect(verbose.stdout[purge + 1]).toBe('          `urn:policy:acme:nightly` mechanism 1 (`urn:action:acme:purge`): took `if`, outcome inhibit');
    const report = verbose.stdout.indexOf('        explanation of `urn:action:acme:report`:');
    expect(report).toBeGreaterThan(purge);
    expect(verbose.stdout[report + 1]).toBe('          `urn:policy:acme:nightly` mechanism 2 (`urn:action:acme:report`): took `if`, outcome allow');
  });

  it('say when the timer does not fire at the instant, with its next fire time', async () => {
    const { directory, file } = folder(`  - name: not at 02:00 UTC
    tick: { timer: urn:timer:acme:nightly, at: '2026-11-28T02:00:00Z' }
    expect: { fires: false }
  - name: expected at 02:00 UTC
    tick: { timer: urn:timer:acme:nightly, at: 1795831200000 }
    expect: { allowed: true }
`);
    const output = bufferedOutput(false);
    expect(await runTests([directory], OPTIONS, output)).toBe(1);
    expect(output.stdout).toEqual([
      file,
      '  ok    not at 02:00 UTC',
      '        `urn:timer:acme:nightly` does not fire at 2026-11-28T02:00:00.000Z; next at 2026-11-29T01:00:00.000Z',
      `  FAIL  expected at 02:00 UTC (${file}:7)`,
      '        `urn:timer:acme:nightly` does not fire at 2026-11-28T02:00:00.000Z; next at 2026-11-29T01:00:00.000Z',
      '        expect.fires: expected the timer to fire at 2026-11-28T02:00:00.000Z, it does not (next at 2026-11-29T01:00:00.000Z)',
      '1 passed, 1 failed',
    ]);
  });

  it('report the tick in JSON and count its decisions in coverage', async () => {
    const { directory } = folder(`  - name: the nightly run
    tick: { timer: urn:timer:acme:nightly, at: '${BERLIN_2AM}' }
    expect: { fires: true, allowed: true }
`);
    const output = bufferedOutput(false);
    // No export today: the report is inhibited, so the expectation fails on it.
    expect(await runTests([directory], { ...OPTIONS, format: 'json', coverage: true }, output)).toBe(1);
    const report = JSON.parse(output.stdout.join('\n')) as {
      files: Array<{ tests: Array<{ tick: unknown; fired: Array<{ decided: { allowed: boolean } }> }> }>;
      coverage: Array<{ reached: number; branches: number; missed: Array<{ mechanism: number; branch: string }> }>;
    };
    const [test] = report.files[0]?.tests ?? [];
    expect(test?.tick).toEqual({ timer: 'urn:timer:acme:nightly', at: 1795827600000, fires: true, next: null });
    expect(test?.fired.map((fired) => fired.decided.allowed)).toEqual([true, false]);
    expect(report.coverage[0]?.missed.map((missed) => `${missed.mechanism} ${missed.branch}`)).toEqual(['0 if', '1 if']);
  });

  it('refuse a timer that is not among the policy paths, a bad instant, and a test with both an event and a tick', async () => {
    const { directory, file } = folder(`  - name: misspelt
    tick: { timer: urn:timer:acme:nighty, at: 0 }
    expect: { fires: false }
`);
    const output = bufferedOutput(false);
    expect(await runTests([directory], OPTIONS, output)).toBe(2);
    expect(output.stdout).toContain(`  ${file}:5:20: tests[0].tick.timer: no timer \`urn:timer:acme:nighty\` in the file's policy paths; did you mean \`urn:timer:acme:nightly\`?`);

    const read = readTestFile(
      file,
      `policies: [policies]
tests:
  - name: bad instant
    tick: { timer: urn:timer:acme:nightly, at: tomorrow }
    expect: { fires: false }
  - name: both
    event: { actionId: { scope: acme, action: purge }, timestamp: 0 }
    tick: { timer: urn:timer:acme:nightly, at: 0 }
    expect: { allowed: true }
  - name: a fire that decides nothing
    tick: { timer: nightly, at: 0 }
    expect: { fires: false, allowed: true }
`,
    );
    expect(read.ok ? [] : read.problems.map((p) => `${p.line}:${p.column} ${p.message}`)).toEqual([
      '4:48 tests[0].tick.at: must be milliseconds since the epoch or an ISO 8601 time with a date (`2026-11-28T02:00:00Z`)',
      '8:11 tests[1].tick: a test has `event` or `tick`, not both',
      '11:20 tests[2].tick.timer: `nightly` is not a timer; expected `urn:timer:<solution>:<name>`',
      '12:38 tests[2].expect.allowed: unknown key `allowed`; expected `fires`',
    ]);
  });
});
