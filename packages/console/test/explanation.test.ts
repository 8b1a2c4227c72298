import { EXPLAINED_DECISION_EXAMPLE, type Modifier } from '@custos/contracts';
import type { ExplainedDecision } from '../src/web/logic/api';
import { explanationTree, type TreeNode } from '../src/web/logic/explanation';

const find = (node: TreeNode, label: string): TreeNode | undefined =>
  node.label === label ? node : node.children.map((child) => find(child, label)).find((n) => n !== undefined);

/** The example of the pdp's OpenAPI document: what the console must read as the pdp answers it. */
const example = EXPLAINED_DECISION_EXAMPLE as ExplainedDecision;

test('an explained decision: the branch, each condition with its nested values, the delay, PIP answers, history and executes', () => {
  const tree = explanationTree(example);
  expect(tree).toMatchObject({ label: 'decision', value: 'allowed', tone: 'allow' });
  expect(find(tree, 'policy revision')?.value).toBe('9');
  expect(find(tree, 'delay')?.value).toBe('250 ms');
  const mechanism = find(tree, 'urn:policy:acme:mask · mechanism #1 (urn:action:acme:show)');
  expect(mechanism).toMatchObject({ value: 'allow', tone: 'allow' });
  // The engine counts branches from 0; people from 1: the first elseif is `elseif #1`.
  expect(find(mechanism!, 'branch taken')?.value).toBe('elseif #1');
  const conditions = find(mechanism!, 'conditions')?.children;
  expect(conditions?.map((c) => [c.label, c.value])).toEqual([
    ['condition #1', 'false'],
    ['condition #2', 'true'],
  ]);
  // Under each condition, the element it evaluated with its operands one per line; an inner element (the `plus`)
  // under the outer one with its own operands, a long value marked cut short.
  expect(conditions?.[0]?.children).toEqual([
    {
      label: 'equals',
      value: 'false',
      children: [
        { label: 'event user at $.id', value: '"alice"', children: [] },
        { label: 'constant', value: '"bob"', children: [] },
      ],
    },
  ]);
  expect(conditions?.[1]?.children).toEqual([
    {
      label: 'less',
      value: 'true',
      children: [
        {
          label: 'plus',
          value: '5',
          children: [
            { label: 'count of urn:action:acme:show', value: '4', children: [] },
            { label: 'constant', value: '1', children: [] },
          ],
        },
        { label: 'pip urn:info:acme:limit', value: `"${'x'.repeat(120)}…" (cut short)`, children: [] },
      ],
    },
  ]);
  expect(mechanism?.children.find((c) => c.label === 'delay')?.value).toBe('250 ms');
  expect(find(mechanism!, 'urn:info:acme:role')).toEqual({ label: 'urn:info:acme:role', value: 'admin', children: [] });
  // The history look-ups under their own heading (the count also appears above, as an operand of the `plus`).
  const history = find(mechanism!, 'history');
  expect(find(history!, 'count of urn:action:acme:show')?.value).toBe('4 found');
  expect(find(history!, 'eventOccurrence of urn:action:acme:login')?.value).toBe('none');
  expect(find(mechanism!, 'executes (not run while explaining)')?.children).toEqual([{ label: 'execute', value: 'urn:action:acme:notify', children: [] }]);
  expect(find(mechanism!, 'reason')).toBeUndefined();
});

test('a PIP answer that took its default says why', () => {
  const answered = { ...example, explanation: [{ ...(example.explanation[0] as object), pip: [{ method: 'urn:info:acme:role', parameters: [], value: { value: 'guest', type: 'java.lang.String', isComplex: false }, usedDefault: true, reason: 'timeout', cached: false }] }] };
  expect(find(explanationTree(answered), 'urn:info:acme:role')).toMatchObject({ value: 'guest', children: [{ label: 'default used', value: 'timeout' }] });
});

test('an allowed decision with a modifier shows its method and JSON-quoted arguments', () => {
  const modifier: Modifier = {
    name: 'user',
    expression: '$.name.firstName',
    engine: [{ method: 'append', parameters: [{ name: 'suffix', value: { value: ' (masked)', type: 'java.lang.String', isComplex: false } }] }],
  };
  const tree = explanationTree({ id: { identifier: 'urn:decision:2' }, eventAllowed: true, modifiers: [modifier], delay: 0, explanation: [] });
  expect(tree.value).toBe('allowed');
  const modifiers = find(tree, 'modifiers');
  expect(modifiers?.value).toBe('1');
  expect(modifiers?.children[0]).toEqual({ label: 'modify user at $.name.firstName', value: 'append', children: [{ label: 'suffix', value: '" (masked)"', children: [] }] });
  expect(find(tree, 'mechanisms')?.value).toBe('none matched: the default decided');
});

test('a mechanism that failed shows its error', () => {
  const failed = find(explanationTree(example), 'urn:policy:acme:limit · mechanism #2 (urn:action:acme:show)');
  expect(failed).toMatchObject({ value: 'error', tone: 'error' });
  expect(find(failed!, 'error')).toMatchObject({ value: 'the event history is unavailable', tone: 'error' });
  // A failed condition, not a missing else, left it without a branch.
  expect(find(failed!, 'branch taken')?.value).toBe('none (a condition failed)');
  expect(find(failed!, 'conditions')?.children.map((c) => [c.label, c.value])).toEqual([['condition #1', 'error']]);
});

test('an operand that is itself compared or computed shows under its element, with its own operands', () => {
  const mechanism = example.explanation[0] as Record<string, unknown>;
  const values = [
    { element: 'greater', condition: 0, depth: 0, operands: [{ source: 'plus', value: 5 }, { source: 'pip `urn:info:acme:limit`', value: 4 }], value: true },
    { element: 'plus', condition: 0, depth: 1, operands: [{ source: 'event `n`', value: 2 }, { source: 'constant', value: 3, truncated: true }], value: 5 },
    { element: 'size', condition: 1, depth: 0, operands: [{ source: 'event `list`', error: 'no such parameter' }], error: 'no such parameter' },
  ];
  const tree = explanationTree({ ...example, explanation: [{ ...mechanism, values }] });
  const [first, second] = find(tree, 'conditions')?.children ?? [];
  expect(first?.children).toEqual([
    {
      label: 'greater',
      value: 'true',
      children: [
        {
          label: 'plus',
          value: '5',
          children: [
            { label: 'event n', value: '2', children: [] },
            { label: 'constant', value: '3 (cut short)', children: [] },
          ],
        },
        { label: 'pip urn:info:acme:limit', value: '4', children: [] },
      ],
    },
  ]);
  expect(second?.children).toEqual([
    {
      label: 'size',
      value: 'failed: no such parameter',
      tone: 'error',
      children: [{ label: 'event list', value: 'failed: no such parameter', tone: 'error', children: [] }],
    },
  ]);
});
