import { createPolicySet, decide, type EngineDecision } from '../../src';
import { event, mustLoad, OPTIONS, policyXml } from '../support/policies';
import { FixturePip } from '../support/ports';

/** A pip that answers later: every value below reaches the walk through a promise. */
const pip = new FixturePip([
  { method: 'urn:info:acme:flag', value: false },
  { method: 'urn:info:acme:name', value: 'from-pip' },
]);
const later = (method: string, type = 'string', fallback = '') => `<pip:${type} method="urn:info:acme:${method}" default="${fallback}"/>`;

describe('the mechanism walk', () => {
  it('decides a mechanism without ports synchronously, even when ports are given', () => {
    const set = createPolicySet([
      mustLoad(policyXml('<mechanism event="urn:action:acme:act"><if><constant:true/><then><inhibit/></then></if></mechanism>')),
    ]);
    const decision = decide(set, event(), OPTIONS, { pip });
    expect(decision).not.toBeInstanceOf(Promise);
    expect((decision as EngineDecision).allowed).toBe(false);
  });

  it('resumes at each step that waited: the next condition, the next modifier, the next execute', async () => {
    const set = createPolicySet([
      mustLoad(
        policyXml(
          '<mechanism event="urn:action:acme:act">' +
            `<if>${later('flag', 'boolean', 'true')}<then><inhibit/></then></if>` +
            '<elseif><constant:true/><then>' +
            `<modify eventParameter="a" method="replace"><parameter:string name="with">${later('name')}</parameter:string></modify>` +
            '<modify eventParameter="b" method="delete"/>' +
            `<execute action="urn:action:acme:first"><parameter:string name="who">${later('name')}</parameter:string></execute>` +
            '<execute action="urn:action:acme:second"/>' +
            '</then></elseif>' +
            `<execute action="urn:action:acme:always"><parameter:string name="who">${later('name')}</parameter:string></execute>` +
            '</mechanism>',
        ),
      ),
    ]);
    const pending = decide(set, event(), { ...OPTIONS, explain: true }, { pip });
    expect(pending).toBeInstanceOf(Promise);
    const decision = await pending;
    // The pip says false to the `if`, so the `elseif` decides: both modifiers in order, then the branch's executes,
    // then the one under the mechanism.
    expect(decision.explanation?.[0]).toMatchObject({
      branch: { kind: 'elseif', index: 0 },
      conditions: [
        { branch: 0, value: false },
        { branch: 1, value: true },
      ],
      outcome: 'allow',
    });
    expect(decision.modifiers.map((modifier) => [modifier.eventParameter, modifier.parameters])).toEqual([
      ['a', [{ name: 'with', value: 'from-pip' }]],
      ['b', []],
    ]);
    expect(decision.executions.map((execution) => [execution.action, execution.parameters])).toEqual([
      ['urn:action:acme:first', [{ name: 'who', value: 'from-pip' }]],
      ['urn:action:acme:second', []],
      ['urn:action:acme:always', [{ name: 'who', value: 'from-pip' }]],
    ]);
  });

  it('drops the branch but keeps the unconditional executes when a parameter fails after a wait', async () => {
    const set = createPolicySet([
      mustLoad(
        policyXml(
          '<mechanism event="urn:action:acme:act">' +
            `<if>${later('flag', 'boolean', 'true')}<then><inhibit/></then></if>` +
            '<else>' +
            `<modify eventParameter="a" method="replace"><parameter:number name="n"><divide>${later('name', 'number', '1')}<constant:number value="0"/></divide></parameter:number></modify>` +
            '<execute action="urn:action:acme:branch"/>' +
            '</else>' +
            '<execute action="urn:action:acme:always"/>' +
            '</mechanism>',
        ),
      ),
    ]);
    const decision = await decide(set, event(), OPTIONS, { pip });
    // The else is taken; its modifier divides by zero once the pip has answered, which fails the mechanism: it
    // inhibits, without the branch's modifier and execute, but the execute under the mechanism is still planned.
    expect(decision.allowed).toBe(false);
    expect(decision.modifiers).toEqual([]);
    expect(decision.executions.map((execution) => execution.action)).toEqual(['urn:action:acme:always']);
    expect(decision.errors.map((error) => [error.policyId, error.mechanism])).toEqual([['urn:policy:acme:test', 0]]);
    expect(decision.errors[0]?.message).toContain('parameter `n`');
  });
});
