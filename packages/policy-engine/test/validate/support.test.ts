import { codes, mustFail, policyXml } from '../support/policies';

const inCondition = (expression: string) =>
  policyXml(`<mechanism event="urn:action:acme:act"><if><equals>${expression}<constant:number value="1"/></equals><then><allow/></then></if></mechanism>`);

describe('support pass', () => {
  it.each([
    'xor', 'implies', 'less', 'lessEqual', 'greater', 'greaterEqual', 'regex', 'contains', 'eventHasParameter',
    'date', 'time', 'day', 'continuousOccurrence', 'plus', 'minus', 'multiply', 'divide', 'size', 'count', 'concat',
  ])('refuses `%s` as not supported yet, at its location', (name) => {
    expect(mustFail(inCondition(`<${name}/>`))).toEqual([
      { code: 'unsupported_element', message: `element \`${name}\` is not supported yet`, line: 2, column: 52 },
    ]);
  });

  it.each(['pip:string', 'variable:number', 'valueChanged:boolean'])('refuses `%s` as not supported yet', (name) => {
    expect(mustFail(inCondition(`<${name}/>`)).map((item) => item.message)).toEqual([`element \`${name}\` is not supported yet`]);
  });

  it('refuses variable declarations', () => {
    const diagnostics = mustFail(
      policyXml(
        '<variableDeclaration:boolean name="v"><constant:true/></variableDeclaration:boolean>\n' +
          '<mechanism event="urn:action:acme:act"><if><constant:true/><then><allow/></then></if></mechanism>',
      ),
    );
    expect(diagnostics).toEqual([
      { code: 'unsupported_element', message: 'element `variableDeclaration:boolean` is not supported yet', line: 2, column: 1 },
    ]);
  });

  it('refuses the history helpers, each of them', () => {
    const diagnostics = mustFail(inCondition('<count><eventOccurrence event="urn:action:acme:x"/><when fixedTime="today"/></count>'));
    expect(diagnostics.map((item) => item.message)).toEqual([
      'element `count` is not supported yet',
      'element `eventOccurrence` is not supported yet',
      'element `when` is not supported yet',
    ]);
  });

  it('refuses execute inside a condition but accepts it as a decision', () => {
    const diagnostics = mustFail(
      policyXml(
        '<mechanism event="urn:action:acme:act"><if><execute action="urn:action:acme:check"/>' +
          '<then><allow/><execute action="urn:action:acme:log"/></then></if><execute action="urn:action:acme:log"/></mechanism>',
      ),
    );
    expect(diagnostics).toEqual([
      { code: 'unsupported_element', message: 'element `execute` inside a condition is not supported yet', line: 2, column: 44 },
    ]);
    expect(codes(diagnostics)).not.toContain('misplaced_element');
  });
});
