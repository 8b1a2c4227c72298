import { createPolicySet, decide, loadPolicy } from '../../src';
import { event, mustLoad, OPTIONS, policyXml } from '../support/policies';

const set = (...bodies: Array<[string, string]>) =>
  createPolicySet(bodies.map(([name, body]) => mustLoad(policyXml(body, `urn:policy:acme:${name}`))));

describe('decide', () => {
  it('takes the first true branch in document order, then else, then nothing', () => {
    const policies = set([
      'p',
      '<mechanism event="urn:action:acme:act">' +
        '<if><event:boolean eventParameter="a" default="false"/><then><inhibit reason="if"/></then></if>' +
        '<elseif><event:boolean eventParameter="b" default="false"/><then><allow reason="elseif 0"/></then></elseif>' +
        '<elseif><event:boolean eventParameter="c" default="false"/><then><inhibit reason="elseif 1"/></then></elseif>' +
        '<else><allow reason="else"/></else>' +
        '</mechanism>',
    ]);
    const explain = (parameters: Record<string, unknown>) =>
      decide(policies, event(parameters), { ...OPTIONS, explain: true }).explanation![0]!;
    expect(explain({ a: true, b: true })).toMatchObject({ branch: { kind: 'if', index: 0 }, reason: 'if', outcome: 'inhibit', conditions: [{ branch: 0, value: true }] });
    expect(explain({ b: true, c: true })).toMatchObject({ branch: { kind: 'elseif', index: 0 }, reason: 'elseif 0', outcome: 'allow' });
    expect(explain({ c: 'true' })).toMatchObject({
      branch: { kind: 'elseif', index: 1 },
      reason: 'elseif 1',
      conditions: [
        { branch: 0, value: false },
        { branch: 1, value: false },
        { branch: 2, value: true },
      ],
    });
    expect(explain({})).toMatchObject({ branch: { kind: 'else' }, reason: 'else', outcome: 'allow' });
  });

  it('makes no decision without a true branch and without else', () => {
    const policies = set(['p', '<mechanism event="urn:action:acme:act"><if><constant:false/><then><inhibit/></then></if></mechanism>']);
    const decision = decide(policies, event(), { defaultDecision: 'inhibit', timeZone: 'UTC', explain: true });
    expect(decision).toMatchObject({ allowed: false, decided: false, matchedPolicies: ['urn:policy:acme:p'] });
    expect(decision.explanation![0]).toMatchObject({ branch: { kind: 'none' }, outcome: 'none' });
  });

  it('counts a branch with only modify as allow and evaluates modifier parameters against the event', () => {
    const policies = set([
      'p',
      '<mechanism event="urn:action:acme:act"><if><constant:true/><then>' +
        '<modify eventParameter="user" method="replace" jsonPathQuery="$.name" reason="mask">' +
        '<parameter:string name="replaceWith" value="***"/>' +
        '<parameter:number name="copied"><event:number eventParameter="n" default="0"/></parameter:number>' +
        '<parameter:object name="none"/>' +
        '</modify><modify eventParameter="other" method="delete"/></then></if></mechanism>',
    ]);
    const decision = decide(policies, event({ n: '12' }), { defaultDecision: 'inhibit', timeZone: 'UTC' });
    expect(decision).toMatchObject({ allowed: true, decided: true, errors: [] });
    expect(decision.modifiers).toEqual([
      {
        policyId: 'urn:policy:acme:p',
        eventParameter: 'user',
        expression: '$.name',
        method: 'replace',
        parameters: [
          { name: 'replaceWith', value: '***' },
          { name: 'copied', value: 12 },
          { name: 'none', value: null },
        ],
        reason: 'mask',
      },
      { policyId: 'urn:policy:acme:p', eventParameter: 'other', expression: '$', method: 'delete', parameters: [], reason: null },
    ]);
  });

  it('converts delay units to milliseconds', () => {
    for (const [amount, unit, expected] of [
      ['250', 'MILLISECONDS', 250],
      ['1.5', 'SECONDS', 1500],
      ['2', 'MINUTES', 120_000],
      ['1', 'HOURS', 3_600_000],
    ] as const) {
      const policies = set(['p', `<mechanism event="urn:action:acme:act"><if><constant:true/><then><allow/><delay amount="${amount}" unit="${unit}"/></then></if></mechanism>`]);
      expect(decide(policies, event(), OPTIONS).delayMs).toBe(expected);
    }
  });

  it('plans executes of the branch and of the mechanism, also when the event is inhibited', () => {
    const policies = set([
      'p',
      '<mechanism event="urn:action:acme:act"><if><constant:true/><then><inhibit/>' +
        '<execute action="urn:action:acme:notify"><parameter:string name="who"><event:string eventParameter="user" default="?"/></parameter:string></execute>' +
        '</then></if><execute action="urn:action:acme:log"/></mechanism>',
    ]);
    const decision = decide(policies, event({ user: 'ann' }), OPTIONS);
    expect(decision.allowed).toBe(false);
    expect(decision.executions).toEqual([
      { policyId: 'urn:policy:acme:p', action: 'urn:action:acme:notify', parameters: [{ name: 'who', value: 'ann' }] },
      { policyId: 'urn:policy:acme:p', action: 'urn:action:acme:log', parameters: [] },
    ]);
  });

  it('fails closed on an evaluation error, records it, and still plans unconditional executes', () => {
    const policies = set(
      ['bad', '<mechanism event="urn:action:acme:act"><if><equals><event:number eventParameter="n" default="0"/><constant:number value="1"/></equals><then><allow/><execute action="urn:action:acme:branch"/></then></if><execute action="urn:action:acme:always"/></mechanism>'],
      ['good', '<mechanism event="urn:action:acme:act"><if><constant:true/><then><modify eventParameter="p" method="delete"/></then></if></mechanism>'],
    );
    const decision = decide(policies, event({ n: 'many' }), { ...OPTIONS, explain: true });
    expect(decision).toMatchObject({
      allowed: false,
      decided: true,
      modifiers: [],
      errors: [{ policyId: 'urn:policy:acme:bad', mechanism: 0, message: 'event parameter `n` is a string that is not a number' }],
      executions: [{ policyId: 'urn:policy:acme:bad', action: 'urn:action:acme:always', parameters: [] }],
    });
    expect(decision.explanation![0]).toMatchObject({ outcome: 'error', conditions: [{ branch: 0, value: null }], branch: { kind: 'none' } });
    expect(decision.explanation![1]).toMatchObject({ outcome: 'allow', modifiers: [{ method: 'delete' }] });
  });

  it('fails closed when a modifier parameter cannot be evaluated', () => {
    const policies = set([
      'p',
      '<mechanism event="urn:action:acme:act"><if><constant:true/><then><modify eventParameter="p" method="m">' +
        '<parameter:string name="s"><event:string eventParameter="x" default="" jsonPathQuery="$[*]"/></parameter:string></modify></then></if></mechanism>',
    ]);
    const decision = decide(policies, event({ x: ['a', 'b'] }), OPTIONS);
    expect(decision.allowed).toBe(false);
    expect(decision.errors).toEqual([
      { policyId: 'urn:policy:acme:p', mechanism: 0, message: 'parameter `s`: jsonPathQuery `$[*]` selected 2 values in event parameter `x` where one is needed' },
    ]);
  });

  it('numbers mechanisms by their position in the policy and keeps only those of the action', () => {
    const policies = set([
      'p',
      '<mechanism event="urn:action:acme:other"><if><constant:true/><then><inhibit/></then></if></mechanism>' +
        '<mechanism event="urn:action:acme:act"><if><constant:true/><then><allow/></then></if></mechanism>',
    ]);
    const decision = decide(policies, event(), { ...OPTIONS, explain: true });
    expect(decision.explanation!.map((item) => [item.mechanism, item.event])).toEqual([[1, 'urn:action:acme:act']]);
    expect(decision.allowed).toBe(true);
  });

  it('only explains when asked', () => {
    const policies = set(['p', '<mechanism event="urn:action:acme:act"><if><constant:true/><then><allow/></then></if></mechanism>']);
    expect(decide(policies, event(), OPTIONS)).not.toHaveProperty('explanation');
  });

  it('gives callers values they cannot use to change the policy', () => {
    const policies = set([
      'p',
      '<mechanism event="urn:action:acme:act"><if><constant:true/><then><modify eventParameter="p" method="m"><parameter:list name="l" value="[1, [2]]"/></modify></then></if></mechanism>',
    ]);
    const first = decide(policies, event(), OPTIONS).modifiers[0]!.parameters[0]!.value as unknown[];
    expect(() => first.push(3)).toThrow(TypeError);
    expect(decide(policies, event(), OPTIONS).modifiers[0]!.parameters[0]!.value).toEqual([1, [2]]);
  });

  it('never throws for bad input at load', () => {
    for (const input of ['', '<', '<policy', 'not xml at all', '\u0000', 42 as unknown as string]) {
      const outcome = loadPolicy(input);
      expect(outcome.ok).toBe(false);
    }
  });
});
