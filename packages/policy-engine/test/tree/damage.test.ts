import fc from 'fast-check';
import { createPolicySet, decide, loadCompiledTree, loadPolicyTree, supportsPolicyTree, POLICY_TREE_VERSION, type PolicyTree } from '../../src';
import { policyXml } from '../support/policies';
import { FixturePip, FixturePxp, InMemoryHistory, fixedClock } from '../support/ports';

/** A damaged tree is refused with one `invalid_tree` diagnostic saying where, and never throws. */

const XML = policyXml(`
  <variableDeclaration:number name="limit"><constant:number value="3"/></variableDeclaration:number>
  <variableDeclaration:boolean name="over"><greater><count><eventOccurrence event="urn:action:acme:act"/><when fixedTime="today"/></count><variable:number reference="limit"/></greater></variableDeclaration:boolean>
  <mechanism event="urn:action:acme:act">
    <if>
      <and>
        <not><variable:boolean reference="over"/></not>
        <regex regex="^a+$"><event:string eventParameter="s" jsonPathQuery="$.name" default=""/></regex>
        <continuousOccurrence interval="1h" minOccurrences="1"><eventOccurrence event="urn:action:acme:act"/><when><start time="*.*.* -3:*"/></when></continuousOccurrence>
      </and>
      <then><allow/></then>
    </if>
    <else><inhibit reason="no"/><delay amount="2" unit="SECONDS"/></else>
  </mechanism>`);

function freshTree(): { version: number; policy: Record<string, unknown> } {
  const loaded = loadPolicyTree(XML);
  if (!loaded.ok) throw new Error(`refused: ${JSON.stringify(loaded.diagnostics)}`);
  return JSON.parse(JSON.stringify(loaded.tree)) as { version: number; policy: Record<string, unknown> };
}

/** Walks `path` (keys and indexes) in a JSON value and returns the holder of its last step. */
function at(value: unknown, path: ReadonlyArray<string | number>): Record<string | number, unknown> {
  let current = value as Record<string | number, unknown>;
  for (const step of path.slice(0, -1)) current = current[step] as Record<string | number, unknown>;
  return current;
}

function damaged(path: ReadonlyArray<string | number>, replacement: unknown): unknown {
  const tree = freshTree();
  const holder = at(tree, path);
  const last = path[path.length - 1]!;
  if (replacement === undefined) delete holder[last];
  else holder[last] = replacement;
  return tree;
}

function refusal(tree: unknown): string {
  const outcome = loadCompiledTree(tree);
  if (outcome.ok) throw new Error('the damaged tree was compiled');
  expect(outcome.diagnostics).toHaveLength(1);
  expect(outcome.diagnostics[0]!.code).toBe('invalid_tree');
  return outcome.diagnostics[0]!.message;
}

const condition = ['policy', 'mechanisms', 0, 'branches', 0, 'condition'];
const operand = (index: number) => [...condition, 'operands', index];

describe('loadCompiledTree', () => {
  it('compiles the intact tree', () => {
    expect(loadCompiledTree(freshTree()).ok).toBe(true);
  });

  it('refuses what is no tree of its version, naming the version', () => {
    expect(refusal(null)).toContain('version `undefined`');
    expect(refusal('tree')).toContain('version `undefined`');
    expect(refusal({ ...freshTree(), version: POLICY_TREE_VERSION + 1 })).toContain(`version \`${POLICY_TREE_VERSION + 1}\``);
    expect(supportsPolicyTree({ ...freshTree(), version: POLICY_TREE_VERSION + 1 })).toBe(false);
    expect(supportsPolicyTree(freshTree())).toBe(true);
  });

  it.each<[string, ReadonlyArray<string | number>, unknown, string]>([
    ['an unknown kind', [...operand(0), 'kind'], 'nand', 'policy.mechanisms[0].branches[0].condition.operands[0].kind: `nand` is not a kind of expression'],
    ['an operand of the wrong type', operand(0), { kind: 'constant', type: 'number', value: 1 }, 'condition.operands[0]: is of type number, not boolean'],
    ['a missing field', [...operand(0), 'operand'], undefined, 'condition.operands[0].operand: is not an object'],
    ['a literal of another type', ['policy', 'declarations', 0, 'value', 'value'], 'three', 'declarations[0].value.value: is not a number literal'],
    ['an undeclared variable', ['policy', 'declarations', 1, 'value', 'operands', 1, 'reference'], 'nothing', 'refers to the undeclared variable `nothing`'],
    ['a variable of another type', ['policy', 'declarations', 1, 'value', 'operands', 1, 'type'], 'string', 'refers to `limit` of type number, not string'],
    ['a bad regex', [...operand(1), 'regex'], '(a', 'condition.operands[1].regex: `(a` is not a valid regular expression'],
    ['a bad jsonpath', [...operand(1), 'operands', 0, 'path'], '$[', 'operands[0].path: `$[` is not a valid jsonpath'],
    ['a zero interval', [...operand(2), 'intervalMs'], 0, 'intervalMs: is not a whole number from 1'],
    ['an infinite delay', ['policy', 'mechanisms', 0, 'otherwise', 'delayMs'], Number.POSITIVE_INFINITY, 'otherwise.delayMs: is not a whole number'],
    ['no mechanism', ['policy', 'mechanisms'], [], 'policy.mechanisms: needs at least 1 item'],
    ['an id of another solution', ['policy', 'solution'], 'other', 'is not a policy of solution `other`'],
    ['an elseif first', [...condition.slice(0, -1), 'kind'], 'elseif', 'branches[0].kind: is not one of `if`'],
    ['a day out of the week', [...operand(2), 'history', 'when', 'start', 'time', 'day'], { kind: 'absolute', value: 40 }, 'time.day.value: is not a whole number from 1 to 31'],
    // `delete` on a list leaves a hole: the shape the fuzz test found compiled to an operand without a closure.
    ['a hole among operands', ['policy', 'declarations', 1, 'value', 'operands', 1], undefined, 'policy.declarations[1].value.operands[1]: is missing'],
    ['a hole among the operands of a condition', [...operand(1), 'operands', 0], undefined, 'condition.operands[1].operands[0]: is missing'],
  ])('refuses %s, saying where', (_, path, replacement, message) => {
    expect(refusal(damaged(path, replacement))).toContain(message);
  });

  it('refuses a list literal with a hole, which no JSON text has', () => {
    const sparse = [1, 2];
    delete sparse[1];
    const tree = damaged([...operand(1), 'operands', 0], { kind: 'constant', type: 'list', value: sparse });
    expect(refusal(tree)).toContain('condition.operands[1].operands[0].value: is not a list literal');
  });

  it('refuses declarations that depend on each other', () => {
    const tree = freshTree();
    const declarations = tree.policy.declarations as Array<Record<string, unknown>>;
    // limit := variable over (a boolean) would be a type error; make both booleans referring to each other.
    declarations[0] = { name: 'limit', type: 'boolean', value: { kind: 'variable', type: 'boolean', reference: 'over' } };
    const over = declarations[1]!;
    over.value = { kind: 'variable', type: 'boolean', reference: 'limit' };
    expect(refusal(tree)).toMatch(/the variable `(limit|over)` depends on itself/);
  });

  it('refuses nesting deeper than any policy can, without exhausting the stack', () => {
    const tree = freshTree();
    let deep: unknown = { kind: 'constant', type: 'boolean', value: true };
    for (let i = 0; i < 100_000; i++) deep = { kind: 'not', type: 'boolean', operand: deep };
    at(tree, condition)[condition[condition.length - 1]!] = deep;
    expect(refusal(tree)).toContain('nests deeper than 200');
  });

  it('never throws for a randomly damaged tree, and what it compiles decides without throwing', async () => {
    const paths: Array<Array<string | number>> = [];
    const collect = (value: unknown, path: Array<string | number>): void => {
      if (path.length > 0) paths.push(path);
      if (Array.isArray(value)) value.forEach((item, index) => collect(item, [...path, index]));
      else if (typeof value === 'object' && value !== null) for (const [key, item] of Object.entries(value)) collect(item, [...path, key]);
    };
    collect(freshTree(), []);
    const replacement = fc.oneof(
      fc.constant(undefined),
      fc.jsonValue({ maxDepth: 2 }),
      fc.constantFrom('boolean', 'number', 'string', 'list', 'object', 'and', 'variable', 'constant', -1, 0, 1e21, [], {}),
    );
    let compiled = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(fc.constantFrom(...paths), replacement), { minLength: 1, maxLength: 3 }), async (damages) => {
        const tree = freshTree();
        for (const [path, value] of damages) {
          let holder: unknown = tree;
          for (const step of path.slice(0, -1)) holder = typeof holder === 'object' && holder !== null ? (holder as Record<string | number, unknown>)[step] : undefined;
          if (typeof holder !== 'object' || holder === null) continue;
          const last = path[path.length - 1]!;
          if (value === undefined) delete (holder as Record<string | number, unknown>)[last];
          else (holder as Record<string | number, unknown>)[last] = value;
        }
        const outcome = loadCompiledTree(tree as PolicyTree);
        if (!outcome.ok) {
          expect(outcome.diagnostics.map((item) => item.code)).toEqual(['invalid_tree']);
          return;
        }
        compiled++;
        const history = new InMemoryHistory();
        const ports = { history, pip: new FixturePip([]), pxp: new FixturePxp([]), clock: fixedClock(Date.parse('2025-01-15T12:00:00Z')) };
        const parameters = new Map<string, unknown>([['s', { name: 'aa' }]]);
        for (const action of outcome.policy.actions) {
          const decision = await decide(createPolicySet([outcome.policy]), { action, timestamp: 0, parameters }, { defaultDecision: 'allow', timeZone: 'UTC' }, ports);
          expect(typeof decision.allowed).toBe('boolean');
        }
      }),
      { numRuns: 500 },
    );
    // Some damage leaves a valid tree (another reason text, another literal): those must decide too.
    expect(compiled).toBeGreaterThan(0);
  });
});
