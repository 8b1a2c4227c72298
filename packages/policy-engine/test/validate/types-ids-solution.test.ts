import { mustFail, policyXml } from '../support/policies';

const condition = (expression: string) =>
  policyXml(`<mechanism event="urn:action:acme:act"><if>${expression}<then><allow/></then></if></mechanism>`);
const messages = (xml: string) => mustFail(xml).map((item) => `${item.code}: ${item.message}`);

describe('types pass', () => {
  it('needs boolean conditions', () => {
    expect(mustFail(condition('<constant:string value="yes"/>'))).toEqual([
      {
        code: 'type_mismatch',
        message: 'the condition of `if` must be boolean, found `constant:string` of type string',
        line: 2,
        column: 44,
      },
    ]);
  });

  it('needs boolean operands for and, or and not', () => {
    expect(messages(condition('<and><constant:true/><constant:number value="1"/></and>'))).toEqual([
      'type_mismatch: `and` takes boolean expressions, found `constant:number` of type number',
    ]);
    expect(messages(condition('<or><event:list eventParameter="l" default="[]"/></or>'))).toEqual([
      'type_mismatch: `or` takes boolean expressions, found `event:list` of type list',
    ]);
    expect(messages(condition('<not><constant:object value="{}"/></not>'))).toEqual([
      'type_mismatch: `not` takes boolean expressions, found `constant:object` of type object',
    ]);
  });

  it('lets equals compare any types', () => {
    expect(() => messages(condition('<equals><constant:string value="1"/><constant:number value="1"/></equals>'))).toThrow(
      'expected the policy to be refused, it loaded',
    );
  });

  it('needs parameter values of the parameter type', () => {
    const xml = policyXml(
      '<mechanism event="urn:action:acme:act"><if><constant:true/><then><modify eventParameter="p" method="m">' +
        '<parameter:number name="n"><event:string eventParameter="s" default=""/></parameter:number></modify></then></if></mechanism>',
    );
    expect(messages(xml)).toEqual(['type_mismatch: `parameter:number` needs a number value, found `event:string` of type string']);
  });
});

describe('identifiers pass', () => {
  it('checks the form of the policy id', () => {
    for (const id of ['urn:policy:Acme:x', 'urn:policy:acme', 'policy:acme:x', 'urn:policy:acme:x y', 'urn:policy:acme:x:y']) {
      const diagnostics = mustFail(condition('<constant:true/>').replace('urn:policy:acme:test', id));
      expect(diagnostics).toEqual([
        {
          code: 'invalid_urn',
          message: `attribute \`id\` of \`policy\`: \`${id}\` is not of the form \`urn:policy:<solution>:<name>\` (solution of \`[a-z0-9._-]\`, name of \`[A-Za-z0-9._-]\`)`,
          line: 1,
          column: 9,
        },
      ]);
    }
  });

  it('checks mechanism events and execute actions', () => {
    const xml = policyXml(
      '<mechanism event="urn:acme:act"><if><constant:true/><then><execute action="urn:action:acme:"/></then></if></mechanism>',
    );
    expect(messages(xml)).toEqual([
      'invalid_urn: attribute `event` of `mechanism`: `urn:acme:act` is not of the form `urn:action:<solution>:<name>` (solution of `[a-z0-9._-]`, name of `[A-Za-z0-9._-]`)',
      'invalid_urn: attribute `action` of `execute`: `urn:action:acme:` is not of the form `urn:action:<solution>:<name>` (solution of `[a-z0-9._-]`, name of `[A-Za-z0-9._-]`)',
    ]);
  });
});

describe('solution pass', () => {
  it('keeps events and executes in the solution of the policy id', () => {
    const line =
      '<mechanism event="urn:action:other:act"><if><constant:true/><then><execute action="urn:action:acme:ok"/></then></if>' +
      '<execute action="urn:action:third:log"/></mechanism>';
    expect(mustFail(policyXml(line))).toEqual([
      {
        code: 'solution_mismatch',
        message: 'attribute `event` of `mechanism`: `urn:action:other:act` belongs to solution `other`, but the policy belongs to solution `acme`',
        line: 2,
        column: line.indexOf('event=') + 1,
      },
      {
        code: 'solution_mismatch',
        message: 'attribute `action` of `execute`: `urn:action:third:log` belongs to solution `third`, but the policy belongs to solution `acme`',
        line: 2,
        column: line.indexOf('action="urn:action:third') + 1,
      },
    ]);
  });
});

describe('all passes together', () => {
  it('report every problem of a policy, in reading order', () => {
    const xml = [
      '<policy id="urn:policy:acme:many" xmlns="http://www.mydata-control.de/4.0/mydataLanguage" xmlns:c="http://www.mydata-control.de/4.0/constant">',
      '  <mechanism event="urn:action:other:a" colour="red">',
      '    <if><c:string value="x"/><then><allow/><inhibit/></then></if>',
      '  </mechanism>',
      '  <mechanism event="urn:action:acme:b">',
      '    <if><xor/><then><delay amount="x" unit="SECONDS"/></then></if>',
      '    <wat/>',
      '  </mechanism>',
      '</policy>',
    ].join('\n');
    expect(mustFail(xml).map((item) => [item.line, item.code])).toEqual([
      [2, 'solution_mismatch'],
      [2, 'unknown_attribute'],
      [3, 'type_mismatch'],
      [3, 'conflicting_decision'],
      [6, 'missing_element'],
      [6, 'invalid_attribute'],
      [7, 'unknown_element'],
    ]);
  });
});
