import type { Modifier } from '@custos/contracts';
import { compareOutcome } from '../src/offline/testing/compare';
import { failureLines, summaryLine } from '../src/offline/testing/report';
import type { ActualOutcome } from '../src/offline/testing/test-file';

const masked: Modifier = {
  name: 'employee',
  expression: '$.salary',
  engine: [
    {
      method: 'replace',
      parameters: [
        { name: 'replaceWith', value: { value: '***', type: 'java.lang.String', isComplex: false } },
        { name: 'mode', value: { value: 'all', type: 'java.lang.String', isComplex: false } },
      ],
    },
  ],
};

const actual = (overrides: Partial<ActualOutcome> = {}): ActualOutcome => ({
  allowed: true,
  modifiers: [masked],
  delay: 200,
  executes: [
    { action: 'urn:action:acme:log', parameters: { user: 'ann', n: 1 }, planned: true },
    { action: 'urn:action:acme:approve', parameters: {}, planned: false },
  ],
  errors: [],
  ...overrides,
});

describe('comparing an expectation with the decision', () => {
  it('passes when only `allowed` is expected and it matches', () => {
    expect(compareOutcome({ allowed: true }, actual())).toEqual([]);
  });

  it('reports a different verdict and delay', () => {
    expect(compareOutcome({ allowed: false, delay: 0 }, actual())).toEqual([
      { path: 'expect.allowed', message: 'expected false, got true' },
      { path: 'expect.delay', message: 'expected 0, got 200' },
    ]);
  });

  it('compares each modifier as a subset of the decided one at its place', () => {
    const subset = { name: 'employee', engine: [{ parameters: [{ name: 'replaceWith', value: { value: '***' } }] }] };
    expect(compareOutcome({ allowed: true, modifiers: [subset] }, actual())).toEqual([]);
    expect(
      compareOutcome(
        {
          allowed: true,
          modifiers: [
            {
              name: 'employee',
              expression: '$.bonus',
              engine: [{ method: 'delete', parameters: [{ name: 'replaceWith', value: { value: '---', isComplex: true } }, { name: 'prefix', value: {} }] }],
            },
          ],
        },
        actual(),
      ),
    ).toEqual([
      { path: 'expect.modifiers[0].expression', message: 'expected "$.bonus", got "$.salary"' },
      { path: 'expect.modifiers[0].engine[0].method', message: 'expected "delete", got "replace"' },
      { path: 'expect.modifiers[0].engine[0].parameters[replaceWith].value.value', message: 'expected "---", got "***"' },
      { path: 'expect.modifiers[0].engine[0].parameters[replaceWith].value.isComplex', message: 'expected true, got false' },
      { path: 'expect.modifiers[0].engine[0].parameters[prefix]', message: 'expected a parameter `prefix`, got `replaceWith`, `mode`' },
    ]);
  });

  it('wants as many modifiers as were decided', () => {
    expect(compareOutcome({ allowed: true, modifiers: [] }, actual())).toEqual([
      { path: 'expect.modifiers', message: 'expected 0 modifiers, got 1: `employee` replace' },
    ]);
    expect(compareOutcome({ allowed: true, modifiers: [{ name: 'employee' }] }, actual({ modifiers: [] }))).toEqual([
      { path: 'expect.modifiers', message: 'expected 1 modifier, got 0: none' },
    ]);
  });

  it('finds expected executes among planned ones and calls in conditions, with at least the given parameters', () => {
    const executes = [
      { action: 'urn:action:acme:log', parameters: { user: 'ann' } },
      { action: 'urn:action:acme:approve', parameters: null },
    ];
    expect(compareOutcome({ allowed: true, executes }, actual())).toEqual([]);
    expect(
      compareOutcome(
        {
          allowed: true,
          executes: [
            { action: 'urn:action:acme:log', parameters: { user: 'bob' } },
            { action: 'urn:action:acme:notify', parameters: null },
          ],
        },
        actual(),
      ),
    ).toEqual([
      { path: 'expect.executes[0].parameters', message: 'expected `urn:action:acme:log` with {"user":"bob"}, got {"user":"ann","n":1}' },
      { path: 'expect.executes[1]', message: 'expected a call of `urn:action:acme:notify`, got `urn:action:acme:log`, `urn:action:acme:approve` (in a condition)' },
    ]);
  });

  it('reads an empty executes list as "no call at all"', () => {
    expect(compareOutcome({ allowed: true, executes: [] }, actual({ executes: [] }))).toEqual([]);
    expect(compareOutcome({ allowed: true, executes: [] }, actual())).toHaveLength(1);
  });

  it('prints the differences, the decision in the wire shape and mechanism errors', () => {
    const outcome = actual({ allowed: false, modifiers: [], delay: 0, executes: [], errors: ['`urn:policy:acme:p` mechanism 1: division by zero'] });
    const lines = failureLines({ actual: outcome, differences: compareOutcome({ allowed: true }, outcome), explanation: [] });
    expect(lines).toEqual([
      'expect.allowed: expected true, got false',
      'decided: {"eventAllowed":false,"modifiers":[],"delay":0}',
      'mechanism error: `urn:policy:acme:p` mechanism 1: division by zero',
    ]);
    expect(failureLines({ actual: outcome, differences: [], explanation: [] })).toEqual([]);
    expect(summaryLine(3, 1)).toBe('3 passed, 1 failed');
  });
});
