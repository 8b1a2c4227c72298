import { mustFail, mustLoad, policyXml } from '../support/policies';

const mechanism = (inner: string) => policyXml(`<mechanism event="urn:action:acme:act">${inner}</mechanism>`);
const branch = (decision: string) => mechanism(`<if><constant:true/><then>${decision}</then></if>`);
const condition = (expression: string) => branch(`<allow/>`).replace('<constant:true/>', expression);
const messages = (xml: string) => mustFail(xml).map((item) => `${item.code}: ${item.message}`);

describe('structure pass', () => {
  it('accepts the full grammar of a mechanism and a decision', () => {
    mustLoad(
      mechanism(
        '<if><constant:false/><then><inhibit reason="r"/><delay amount="1" unit="SECONDS"/><execute action="urn:action:acme:x"/></then></if>' +
          '<elseif><constant:false/><then><modify eventParameter="p" method="delete"/><modify eventParameter="q" method="delete"/></then></elseif>' +
          '<elseif><constant:true/><then/></elseif>' +
          '<else><execute action="urn:action:acme:y"/></else>' +
          '<execute action="urn:action:acme:z"/><execute action="urn:action:acme:z"/>',
      ),
    );
  });

  it('needs at least one mechanism', () => {
    expect(mustFail(policyXml(''))).toEqual([
      { code: 'missing_element', message: '`policy` needs at least one `mechanism`, found 0', line: 1, column: 1 },
    ]);
  });

  it('needs exactly one if per mechanism, first', () => {
    expect(messages(mechanism('<else><allow/></else>'))).toEqual(['missing_element: `mechanism` needs exactly one `if`, found 0']);
    expect(messages(mechanism('<if><constant:true/><then/></if><if><constant:true/><then/></if>'))).toEqual([
      'too_many_children: `mechanism` takes exactly one `if`, found more',
    ]);
  });

  it('keeps if, elseif, else and execute in order', () => {
    expect(messages(mechanism('<if><constant:true/><then/></if><else/><elseif><constant:true/><then/></elseif>'))).toEqual([
      'misplaced_element: element `elseif` must come before `else` in `mechanism`',
    ]);
    expect(messages(mechanism('<execute action="urn:action:acme:x"/><if><constant:true/><then/></if>'))).toEqual([
      'misplaced_element: element `if` must come before `execute` in `mechanism`',
    ]);
    expect(messages(mechanism('<if><constant:true/><then/></if><else/><else/>'))).toEqual([
      'too_many_children: `mechanism` takes at most one `else`, found more',
    ]);
  });

  it('needs a condition and a then in each branch, in that order', () => {
    expect(messages(mechanism('<if><then/></if>'))).toEqual(['missing_element: `if` needs exactly one condition, found 0']);
    expect(messages(mechanism('<if><constant:true/></if>'))).toEqual(['missing_element: `if` needs exactly one `then`, found 0']);
    expect(messages(mechanism('<if><then/><constant:true/></if>'))).toEqual([
      'misplaced_element: element `constant:true` must come before `then` in `if`',
    ]);
    expect(messages(mechanism('<if><constant:true/><constant:true/><then/></if>'))).toEqual([
      'too_many_children: `if` takes exactly one condition, found more',
    ]);
  });

  it('refuses allow or inhibit together with modify, and two verdicts', () => {
    expect(messages(branch('<allow/><modify eventParameter="p" method="delete"/>'))).toEqual([
      'conflicting_decision: `allow` and `modify` cannot be combined in one decision (a decision with `modify` already allows)',
    ]);
    expect(messages(branch('<modify eventParameter="p" method="delete"/><inhibit/>'))).toEqual([
      'conflicting_decision: `inhibit` and `modify` cannot be combined in one decision (a decision with `modify` allows)',
    ]);
    expect(messages(branch('<allow/><inhibit/>'))).toEqual(['conflicting_decision: `allow` and `inhibit` cannot be combined in one decision']);
    expect(messages(branch('<allow/><allow/>'))).toEqual(['conflicting_decision: a decision takes at most one `allow`']);
  });

  it('keeps the decision in the order verdict, delay, execute', () => {
    expect(messages(branch('<delay amount="1" unit="SECONDS"/><allow/>'))).toEqual([
      'misplaced_element: element `allow` must come before `delay` in `then`',
    ]);
    expect(messages(branch('<allow/><delay amount="1" unit="SECONDS"/><delay amount="2" unit="SECONDS"/>'))).toEqual([
      'too_many_children: `then` takes at most one `delay`, found more',
    ]);
  });

  it('counts the operands of not, and, or and equals', () => {
    expect(messages(condition('<not/>'))).toEqual(['missing_element: `not` needs exactly one expression, found 0']);
    expect(messages(condition('<not><constant:true/><constant:true/></not>'))).toEqual([
      'too_many_children: `not` takes exactly one expression, found more',
    ]);
    expect(messages(condition('<and/>'))).toEqual(['missing_element: `and` needs at least one expression, found 0']);
    expect(messages(condition('<or/>'))).toEqual(['missing_element: `or` needs at least one expression, found 0']);
    expect(messages(condition('<equals><constant:true/></equals>'))).toEqual([
      'missing_element: `equals` needs at least 2 expressions, found 1',
    ]);
  });

  it('refuses children where none belong, and elements out of place', () => {
    expect(messages(branch('<allow><constant:true/></allow>'))).toEqual([
      'misplaced_element: element `constant:true` is not allowed in `allow`',
    ]);
    expect(messages(condition('<event:boolean eventParameter="p" default="true"><constant:true/></event:boolean>'))).toEqual([
      'misplaced_element: element `constant:true` is not allowed in `event:boolean`',
    ]);
    expect(messages(branch('<mechanism event="urn:action:acme:x"><if><constant:true/><then/></if></mechanism>'))).toEqual([
      'misplaced_element: element `mechanism` is not allowed in `then`',
    ]);
    expect(messages(branch('<modify eventParameter="p" method="m"><constant:true/></modify>'))).toEqual([
      'misplaced_element: element `constant:true` is not allowed in `modify`',
    ]);
  });

  it('allows at most one value child in a parameter', () => {
    expect(
      messages(branch('<modify eventParameter="p" method="m"><parameter:string name="a"><constant:string value="x"/><constant:string value="y"/></parameter:string></modify>')),
    ).toEqual(['too_many_children: `parameter:string` takes at most one expression, found more']);
  });
});
