import { createPolicySet, loadPolicy, outlinePolicy, type CompiledPolicy, type MechanismExplanation } from '@custos/policy-engine';
import { EXPLAINED_DECISION_EXAMPLE, type Event } from '@custos/contracts';
import { BranchCoverage, formatCoverage } from '../src/offline/testing/coverage';
import type { LoadedPolicy } from '../src/offline/testing/load-policies';
import { runTestCase } from '../src/offline/testing/run-test-case';
import type { EventCase, Expectation, TestFile } from '../src/offline/testing/test-file';
import { formatExplanation } from '../src/offline/testing/trace';
import { policyXml } from './support/cli';

const VC = 'http://www.mydata-control.de/4.0/valueChanged';
const PIP = 'http://www.mydata-control.de/4.0/pip';

/** Four mechanisms: a count with a filter, a valueChanged, a pip, an execute inside a condition. */
const XML = policyXml(
  'urn:policy:acme:p',
  `<mechanism event="urn:action:acme:print">
    <if><greater><count><eventOccurrence event="urn:action:acme:print"><parameter:string name="user"><event:string eventParameter="user" default=""/></parameter:string></eventOccurrence><when fixedTime="today"/></count><constant:number value="2"/></greater>
      <then><inhibit/></then></if>
    <else><allow/></else>
  </mechanism>
  <mechanism event="urn:action:acme:status">
    <if><valueChanged:string xmlns:valueChanged="${VC}" id="s"><event:string eventParameter="state" default=""/></valueChanged:string>
      <then><allow/><execute action="urn:action:acme:notify"><parameter:string name="state"><event:string eventParameter="state" default=""/></parameter:string></execute></then></if>
    <elseif><constant:true/><then><modify eventParameter="state" method="replace"><parameter:string name="replaceWith" value="same"/></modify></then></elseif>
  </mechanism>
  <mechanism event="urn:action:acme:view">
    <if><equals><pip:string xmlns:pip="${PIP}" method="urn:info:acme:role" default="none"><parameter:string name="user"><event:string eventParameter="user" default=""/></parameter:string></pip:string><constant:string value="hr"/></equals>
      <then><allow/></then></if>
    <else><inhibit/></else>
  </mechanism>
  <mechanism event="urn:action:acme:approve">
    <if><execute action="urn:action:acme:ask"/><then><allow/></then></if>
    <else><inhibit/></else>
  </mechanism>`,
);

function compiled(): CompiledPolicy {
  const outcome = loadPolicy(XML);
  if (!outcome.ok) throw new Error(JSON.stringify(outcome.diagnostics));
  return outcome.policy;
}

const POLICY = compiled();
const LOADED: LoadedPolicy = { file: 'p.xml', policy: POLICY, outline: outlinePolicy(XML) };
const SET = createPolicySet([POLICY]);
const RECORDED = new Set(POLICY.historyActions);
// Monday 23 November 2026, 09:00 UTC.
const MONDAY_9 = 1795424400000;

const FILE: TestFile = {
  file: 'x.test.yaml',
  policies: [],
  settings: { defaultDecision: 'allow', timeZone: 'UTC', solutions: new Map() },
  pips: [{ method: 'urn:info:acme:role', parameters: null, value: 'staff', fail: false }],
  pxps: [],
  tests: [],
};

const event = (action: string, timestamp: number, parameters: Record<string, unknown> = {}): Event => ({
  actionId: { scope: 'acme', action },
  timestamp,
  parameters: Object.entries(parameters).map(([name, value]) => ({ name, value: { value, type: 'x', isComplex: false } })),
});

const test = (main: Event, expectation: Expectation, extra: Partial<EventCase> = {}): EventCase => ({
  name: 't',
  path: 'tests[0]',
  event: main,
  history: [],
  pips: [],
  pxps: [],
  expect: expectation,
  ...extra,
});

describe('playing a test', () => {
  it('counts the test event and the history of the same user today, recording both as the pdp does', async () => {
    const history = [
      event('print', MONDAY_9 - 86_400_000, { user: 'ann' }), // yesterday
      event('print', MONDAY_9 - 60_000, { user: 'ann' }),
      event('print', MONDAY_9 - 30_000, { user: 'bob' }),
    ];
    // Today: one earlier print of Ann's plus this one = 2, not more than 2.
    const allowed = await runTestCase(FILE, test(event('print', MONDAY_9, { user: 'ann' }), { allowed: true }, { history }), SET, RECORDED);
    expect(allowed.differences).toEqual([]);
    expect(allowed.explanation[0]?.history?.[0]?.count).toBe(2);
    const third = [...history, event('print', MONDAY_9 - 10_000, { user: 'ann' })];
    const refused = await runTestCase(FILE, test(event('print', MONDAY_9, { user: 'ann' }), { allowed: true }, { history: third }), SET, RECORDED);
    expect(refused.actual.allowed).toBe(false);
    expect(refused.differences).toEqual([{ path: 'expect.allowed', message: 'expected true, got false' }]);
  });

  it('decides history events so valueChanged state builds up, and starts every test afresh', async () => {
    const first = await runTestCase(FILE, test(event('status', MONDAY_9, { state: 'on' }), { allowed: true }), SET, RECORDED);
    // The first evaluation counts as a change: the `if` allows and plans the notification.
    expect(first.actual.executes).toEqual([{ action: 'urn:action:acme:notify', parameters: { state: 'on' }, planned: true }]);
    expect(first.explanation[0]?.branch).toEqual({ kind: 'if', index: 0 });
    const same = await runTestCase(
      FILE,
      test(event('status', MONDAY_9, { state: 'on' }), { allowed: true }, { history: [event('status', MONDAY_9 - 1000, { state: 'on' })] }),
      SET,
      RECORDED,
    );
    // The history event stored `on`: no change now, so the `elseif` modifies.
    expect(same.explanation[0]?.branch).toEqual({ kind: 'elseif', index: 0 });
    expect(same.actual.executes).toEqual([]);
    expect(same.actual.modifiers).toEqual([
      { name: 'state', expression: '$', engine: [{ method: 'replace', parameters: [{ name: 'replaceWith', value: { value: 'same', type: 'java.lang.String', isComplex: false } }] }] },
    ]);
  });

  it('answers PIPs from the stubs, the stubs of a test replacing those of the file for that method', async () => {
    const staff = await runTestCase(FILE, test(event('view', MONDAY_9, { user: 'ann' }), { allowed: false }), SET, RECORDED);
    expect(staff.differences).toEqual([]);
    const hr = await runTestCase(
      FILE,
      test(event('view', MONDAY_9, { user: 'ann' }), { allowed: true }, { pips: [{ method: 'urn:info:acme:role', parameters: { user: 'ann' }, value: 'hr', fail: false }] }),
      SET,
      RECORDED,
    );
    expect(hr.differences).toEqual([]);
    // The test's stubs name the method, so the file's catch-all is gone: another user gets the default.
    const other = await runTestCase(
      FILE,
      test(event('view', MONDAY_9, { user: 'bob' }), { allowed: false }, { pips: [{ method: 'urn:info:acme:role', parameters: { user: 'ann' }, value: 'hr', fail: false }] }),
      SET,
      RECORDED,
    );
    expect(other.explanation[0]?.pip?.[0]).toMatchObject({ value: 'none', usedDefault: true });
  });

  it('calls executes inside conditions through the PXP stubs and records them', async () => {
    const approved = await runTestCase(
      FILE,
      test(event('approve', MONDAY_9), { allowed: true, executes: [{ action: 'urn:action:acme:ask', parameters: null }] }, { pxps: [{ action: 'urn:action:acme:ask', answer: true }] }),
      SET,
      RECORDED,
    );
    expect(approved.differences).toEqual([]);
    expect(approved.actual.executes).toEqual([{ action: 'urn:action:acme:ask', parameters: {}, planned: false }]);
    const refused = await runTestCase(FILE, test(event('approve', MONDAY_9), { allowed: false }), SET, RECORDED);
    expect(refused.differences).toEqual([]);
  });

  it('reports the branches no test reached, and leaves mechanisms with executes in conditions unmeasured', async () => {
    const coverage = new BranchCoverage();
    for (const played of [
      test(event('print', MONDAY_9, { user: 'ann' }), { allowed: true }),
      test(event('status', MONDAY_9, { state: 'on' }), { allowed: true }),
      test(event('approve', MONDAY_9), { allowed: false }),
    ]) {
      coverage.add((await runTestCase(FILE, played, SET, RECORDED)).explanation, [LOADED]);
    }
    const [report] = coverage.report();
    // Mechanisms 0–2 have 2 + 3 (status has no `else`: its fall-through counts) + 2 branches; the tests reached
    // print's else and status' if.
    expect(report).toMatchObject({ id: 'urn:policy:acme:p', file: 'p.xml', branches: 7, reached: 2 });
    expect(report?.missed.map((m) => `${m.mechanism} ${m.branch}`)).toEqual(['0 if', '1 elseif 1', '1 fall-through', '2 if', '2 else']);
    expect(report?.unmeasured.map((m) => m.mechanism)).toEqual([3]);
    const lines = formatCoverage(coverage.report());
    expect(lines[0]).toBe('coverage: 2 of 7 branches reached');
    expect(lines).toContain(`    p.xml:${report?.missed[0]?.line}:${report?.missed[0]?.column}: mechanism 1 (\`urn:action:acme:print\`): \`if\` never reached`);
  });

  it('explains a decision as text for --verbose', async () => {
    const played = await runTestCase(FILE, test(event('view', MONDAY_9, { user: 'ann' }), { allowed: true }), SET, RECORDED);
    expect(formatExplanation(played.explanation)).toEqual([
      '`urn:policy:acme:p` mechanism 3 (`urn:action:acme:view`): took `else`, outcome inhibit',
      '  conditions: if false',
      // Numbered from 1 like `explain`; the values the condition compared, where each came from.
      '    if: equals(pip `urn:info:acme:role` = "staff", "hr") → false',
      '  pip `urn:info:acme:role` {"user":"ann"} → "staff"',
    ]);
    expect(formatExplanation([])).toEqual(['no mechanism matches the event: the default decision applies']);
    // A failed condition, not a missing else, leaves a mechanism without a branch.
    const failed = formatExplanation([EXPLAINED_DECISION_EXAMPLE.explanation[1] as MechanismExplanation]);
    expect(failed[0]).toBe('`urn:policy:acme:limit` mechanism 2 (`urn:action:acme:show`): took no branch (a condition failed), outcome error');
  });
});
