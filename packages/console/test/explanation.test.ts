import type { Modifier } from '@custos/contracts';
import type { ExplainedDecision } from '../src/web/logic/api';
import { explanationTree, type TreeNode } from '../src/web/logic/explanation';

const find = (node: TreeNode, label: string): TreeNode | undefined =>
  node.label === label ? node : node.children.map((child) => find(child, label)).find((n) => n !== undefined);

const inhibited: ExplainedDecision = {
  id: { identifier: 'urn:decision:1' },
  eventAllowed: false,
  modifiers: [],
  delay: 0,
  policyRevision: 3,
  explanation: [
    {
      policyId: 'urn:policy:acme:p',
      mechanism: 0,
      event: 'urn:action:acme:show',
      branch: { kind: 'elseif', index: 1 },
      conditions: [
        { branch: 0, value: false },
        { branch: 1, value: true },
      ],
      outcome: 'inhibit',
      delayMs: 250,
      modifiers: [],
      executions: [],
      reason: 'no',
      error: null,
      pip: [{ method: 'urn:info:acme:role', parameters: [], value: { value: 'guest', type: 'java.lang.String', isComplex: false }, usedDefault: true, reason: 'timeout', cached: false }],
      history: [{ element: 'count', action: 'urn:action:acme:show', span: { from: null, to: 0 }, count: 7 }],
      values: [
        {
          element: 'equals',
          condition: 0,
          depth: 0,
          operands: [
            { source: 'event `user` at `$.id`', value: 'alice' },
            { source: 'constant', value: 'bob' },
          ],
          value: false,
        },
      ],
    },
  ],
};

test('an inhibited decision: the branch, each condition, the delay, PIP answers and history counts', () => {
  const tree = explanationTree(inhibited);
  expect(tree).toMatchObject({ label: 'decision', value: 'inhibited', tone: 'inhibit' });
  expect(find(tree, 'policy revision')?.value).toBe('3');
  const mechanism = find(tree, 'urn:policy:acme:p · mechanism #1 (urn:action:acme:show)');
  expect(mechanism).toMatchObject({ value: 'inhibit', tone: 'inhibit' });
  // The engine counts branches from 0; people from 1: the second branch is `elseif #2`.
  expect(find(tree, 'branch taken')?.value).toBe('elseif #2');
  expect(find(tree, 'conditions')?.children.map((c) => [c.label, c.value])).toEqual([
    ['condition #1', 'false'],
    ['condition #2', 'true'],
  ]);
  // Under the condition, the comparison with both of its values.
  expect(find(tree, 'conditions')?.children[0]?.children).toEqual([
    {
      label: 'equals',
      value: 'false',
      children: [
        { label: 'event user at $.id', value: '"alice"', children: [] },
        { label: 'constant', value: '"bob"', children: [] },
      ],
    },
  ]);
  expect(find(tree, 'delay')?.value).toBe('0 ms');
  expect(mechanism?.children.find((c) => c.label === 'delay')?.value).toBe('250 ms');
  expect(find(tree, 'urn:info:acme:role')).toMatchObject({ value: 'guest', children: [{ label: 'default used', value: 'timeout' }] });
  expect(find(tree, 'count of urn:action:acme:show')?.value).toBe('7 found');
  expect(find(tree, 'reason')?.value).toBe('no');
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
  const failed = { ...inhibited, explanation: [{ ...(inhibited.explanation[0] as object), outcome: 'error', error: 'pip unreachable', branch: { kind: 'none' } }] };
  const tree = explanationTree(failed);
  expect(find(tree, 'error')).toMatchObject({ value: 'pip unreachable', tone: 'error' });
  // A failed condition, not a missing else, left it without a branch.
  expect(find(tree, 'branch taken')?.value).toBe('none (a condition failed)');
});

test('an operand that is itself compared or computed shows under its element, with its own operands', () => {
  const mechanism = inhibited.explanation[0] as Record<string, unknown>;
  const values = [
    { element: 'greater', condition: 0, depth: 0, operands: [{ source: 'plus', value: 5 }, { source: 'pip `urn:info:acme:limit`', value: 4 }], value: true },
    { element: 'plus', condition: 0, depth: 1, operands: [{ source: 'event `n`', value: 2 }, { source: 'constant', value: 3, truncated: true }], value: 5 },
    { element: 'size', condition: 1, depth: 0, operands: [{ source: 'event `list`', error: 'no such parameter' }], error: 'no such parameter' },
  ];
  const tree = explanationTree({ ...inhibited, explanation: [{ ...mechanism, values }] });
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
