import { createPolicySet, decide } from '../../src';
import { event, mustLoad, OPTIONS, policyXml } from '../support/policies';
import { FixturePip, InMemoryHistory, fixedClock } from '../support/ports';

const mechanism = (condition: string, rest = '<then><inhibit/></then></if>') =>
  `<mechanism event="urn:action:acme:act"><if>${condition}${rest}</mechanism>`;

describe('operand values in explanations', () => {
  it('shows both values of a mismatched comparison, with where each came from', () => {
    const set = createPolicySet([
      mustLoad(policyXml(mechanism('<equals><event:string eventParameter="user" jsonPathQuery="$.id" default=""/><constant:string value="bob"/></equals>'))),
    ]);
    const explanation = decide(set, event({ user: { id: 'alice' } }), { ...OPTIONS, explain: true }).explanation![0]!;
    expect(explanation.values).toEqual([
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
    ]);
  });

  it('records nested arithmetic inside a comparison with its depth, outer element first', () => {
    const set = createPolicySet([
      mustLoad(
        policyXml(
          '<variableDeclaration:number name="limit"><constant:number value="3"/></variableDeclaration:number>' +
            mechanism(
              '<less><plus><event:number eventParameter="n" default="0"/><constant:number value="1"/></plus><variable:number reference="limit"/></less>',
            ),
        ),
      ),
    ]);
    const values = decide(set, event({ n: 4 }), { ...OPTIONS, explain: true }).explanation![0]!.values!;
    expect(values.map((v) => [v.element, v.depth, v.value])).toEqual([
      ['less', 0, false],
      ['plus', 1, 5],
    ]);
    expect(values[0]!.operands).toEqual([
      { source: 'plus', value: 5 },
      { source: 'variable `limit`', value: 3 },
    ]);
  });

  it('shows what a pip answered and what a count found, and says which condition evaluated them', async () => {
    const history = new InMemoryHistory();
    history.record('urn:action:acme:act', 1_000, {});
    history.record('urn:action:acme:act', 2_000, {});
    const pip = new FixturePip([{ method: 'urn:info:acme:role', value: 'guest' }]);
    const set = createPolicySet([
      mustLoad(
        policyXml(
          '<mechanism event="urn:action:acme:act">' +
            '<if><equals><pip:string method="urn:info:acme:role" default="none"/><constant:string value="admin"/></equals><then><allow/></then></if>' +
            '<elseif><greater><count><eventOccurrence event="urn:action:acme:act"/><when fixedTime="always"/></count><constant:number value="5"/></greater><then><inhibit/></then></elseif>' +
            '<else><allow/></else></mechanism>',
        ),
      ),
    ]);
    const decision = await decide(set, event({}, 'urn:action:acme:act', 3_000), { ...OPTIONS, explain: true }, { pip, history, clock: fixedClock(3_000) });
    const values = decision.explanation![0]!.values!;
    expect(values).toMatchObject([
      { element: 'equals', condition: 0, operands: [{ source: 'pip `urn:info:acme:role`', value: 'guest' }, { value: 'admin' }], value: false },
      { element: 'greater', condition: 1, operands: [{ source: 'count of `urn:action:acme:act`', value: 2 }, { value: 5 }], value: false },
    ]);
  });

  it('cuts long values short and says so', () => {
    const set = createPolicySet([
      mustLoad(policyXml(mechanism('<equals><event:string eventParameter="s" default=""/><constant:string value="x"/></equals>'))),
    ]);
    const long = 'a'.repeat(500);
    const operand = decide(set, event({ s: long }), { ...OPTIONS, explain: true }).explanation![0]!.values![0]!.operands[0]!;
    expect(operand.truncated).toBe(true);
    expect(operand.value).toBe(`${'a'.repeat(120)}…`);
  });

  it('reports a failed operand with its error and leaves the element without a value', () => {
    const set = createPolicySet([
      mustLoad(policyXml(mechanism('<equals><event:string eventParameter="p" jsonPathQuery="$.xs[*]" default=""/><constant:string value="x"/></equals>'))),
    ]);
    const explanation = decide(set, event({ p: { xs: ['a', 'b'] } }), { ...OPTIONS, explain: true }).explanation![0]!;
    expect(explanation.outcome).toBe('error');
    const [record] = explanation.values!;
    expect(record).not.toHaveProperty('value');
    expect(record!.error).toMatch(/selected 2 values/);
    expect(record!.operands).toEqual([{ source: 'event `p` at `$.xs[*]`', error: record!.error }]);
  });

  it('adds no values to decisions, which run the program without recording', () => {
    const set = createPolicySet([
      mustLoad(policyXml(mechanism('<equals><event:string eventParameter="u" default=""/><constant:string value="bob"/></equals>'))),
    ]);
    const decision = decide(set, event({ u: 'alice' }), OPTIONS);
    expect(decision.explanation).toBeUndefined();
    // The same set explains afterwards, and decides the same way after explaining.
    expect(decide(set, event({ u: 'alice' }), { ...OPTIONS, explain: true }).explanation![0]!.values).toHaveLength(1);
    expect(decide(set, event({ u: 'bob' }), OPTIONS).allowed).toBe(false);
  });
});
