import type { ElementNode } from '../../src/ast/nodes';
import type { ValidExpression } from '../../src/ast/valid/expressions';
import type { ValidPolicy } from '../../src/ast/valid/policy';
import { parsePolicy } from '../../src/parse/parse-policy';
import { buildValidPolicy } from '../../src/validate/build/build-policy';
import { TreeGap } from '../../src/validate/build/read-node';
import { validatePolicy } from '../../src/validate/validate-policy';
import { readXml } from '../../src/xml/read-xml';
import { policyXml } from '../support/policies';

function syntaxTree(xml: string): ElementNode {
  const read = readXml(xml);
  if (!read.ok) throw new Error(JSON.stringify(read.diagnostics));
  const parsed = parsePolicy(read.root);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.diagnostics));
  return parsed.policy;
}

function validTree(xml: string): ValidPolicy {
  const outcome = validatePolicy(syntaxTree(xml));
  if (!outcome.ok) throw new Error(JSON.stringify(outcome.diagnostics));
  return outcome.policy;
}

/** The expressions of kind `K` (`and` is one of the kinds of the logical node). */
type OfKind<K, E = ValidExpression> = E extends { readonly kind: infer Kinds } ? (K extends Kinds ? E : never) : never;

function expectKind<K extends ValidExpression['kind']>(expression: ValidExpression, kind: K): OfKind<K> {
  expect(expression.kind).toBe(kind);
  return expression as OfKind<K>;
}

describe('the validated tree', () => {
  it('reads attribute values into typed values and keeps where each element was written', () => {
    const policy = validTree(
      policyXml(
        [
          '<variableDeclaration:number name="limit"><constant:number value=" 2.5 "/></variableDeclaration:number>',
          '<mechanism event="urn:action:acme:act">',
          '<if><and mode="EAGER">',
          '<less><event:number eventParameter="size" jsonPathQuery="$.bytes" default="0"/><variable:number reference="limit"/></less>',
          '<continuousOccurrence interval="1h" minOccurrences="2"><eventOccurrence event="urn:action:acme:act"/>',
          '<when><start time="*.*.* 00:00"/></when></continuousOccurrence>',
          '</and>',
          '<then><modify eventParameter="user" method="replace" jsonPathQuery="$.name"/><delay amount="2" unit="SECONDS"/></then></if>',
          '<else><inhibit reason="too big"/></else>',
          '</mechanism>',
        ].join('\n'),
      ),
    );
    expect(policy).toMatchObject({ id: 'urn:policy:acme:test', solution: 'acme', name: null, location: { line: 1 } });
    const [declaration] = policy.declarations;
    expect(declaration).toMatchObject({ name: 'limit', type: 'number', value: { kind: 'constant', value: 2.5 }, location: { line: 2 } });

    const [mechanism] = policy.mechanisms;
    expect(mechanism?.location.line).toBe(3);
    const [branch] = mechanism?.branches ?? [];
    const condition = expectKind(branch?.condition ?? fail('no condition'), 'and');
    expect(condition.eager).toBe(true);
    const [less, continuous] = condition.operands;
    const comparison = expectKind(less ?? fail('no comparison'), 'comparison');
    expect(comparison.operator).toBe('less');
    expect(comparison.location.line).toBe(5);
    const [size, limit] = comparison.operands;
    expect(expectKind(size ?? fail('no event value'), 'event')).toMatchObject({ parameter: 'size', defaultValue: 0, path: { text: '$.bytes' } });
    // A variable is linked to the declaration itself, not to its name.
    expect(expectKind(limit ?? fail('no variable'), 'variable').declaration).toBe(declaration);
    const occurrence = expectKind(continuous ?? fail('no continuousOccurrence'), 'continuousOccurrence');
    expect(occurrence).toMatchObject({ intervalMs: 3_600_000, minOccurrences: 2, maxOccurrences: Infinity, location: { line: 6 } });
    expect(occurrence.history.when).toMatchObject({
      kind: 'bounds',
      start: { time: { day: { kind: 'current' }, hour: { kind: 'absolute', value: 0 } } },
      end: null,
    });

    expect(branch?.then).toMatchObject({ verdict: null, delayMs: 2000, modifiers: [{ eventParameter: 'user', path: { text: '$.name' } }] });
    expect(mechanism?.otherwise).toMatchObject({ verdict: { kind: 'inhibit', reason: 'too big' }, delayMs: null, location: { line: 10 } });
  });

  it('gives fixedTime precedence over bounds, as the language says', () => {
    const policy = validTree(
      policyXml(
        '<mechanism event="urn:action:acme:act"><if><greater><count><eventOccurrence event="urn:action:acme:act"/>' +
          '<when fixedTime="today"><start time="*.*.* 00:00"/></when></count><constant:number value="3"/></greater>' +
          '<then><inhibit/></then></if></mechanism>',
      ),
    );
    const greater = expectKind(policy.mechanisms[0]?.branches[0].condition ?? fail('no condition'), 'comparison');
    const count = expectKind(greater.operands[0] ?? fail('no count'), 'count');
    expect(count.history.when).toMatchObject({ kind: 'fixed', fixedTime: 'today', location: { line: 2 } });
    expect(Object.keys(count.history.when).sort()).toEqual(['fixedTime', 'kind', 'location']);
  });

  it('refuses to build a tree the passes would refuse, with the location instead of a crash', () => {
    const tree = syntaxTree(policyXml('<mechanism event="urn:action:acme:act">\n<if><then><allow/></then></if></mechanism>'));
    let thrown: unknown;
    try {
      buildValidPolicy(tree);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(TreeGap);
    expect(thrown).toMatchObject({ message: '`if` needs a condition and a `then`', location: { line: 3 } });
  });

  it('hands over no tree while any pass reports', () => {
    const outcome = validatePolicy(syntaxTree(policyXml('<mechanism event="urn:action:acme:act"><if><then><allow/></then></if></mechanism>')));
    expect(outcome).toEqual({ ok: false, diagnostics: [expect.objectContaining({ code: 'missing_element' })] });
  });
});

function fail(message: string): never {
  throw new Error(message);
}
