import { mustFail, mustLoad, policyXml } from '../support/policies';

const branch = (decision: string, condition = '<constant:true/>') =>
  policyXml(`<mechanism event="urn:action:acme:act"><if>${condition}<then>${decision}</then></if></mechanism>`);
const messages = (xml: string) => mustFail(xml).map((item) => `${item.code}: ${item.message}`);

describe('attributes pass', () => {
  it('reports missing required attributes at the element', () => {
    expect(mustFail(policyXml('<mechanism><if><constant:true/><then/></if></mechanism>'))).toEqual([
      { code: 'missing_attribute', message: '`mechanism` needs attribute `event`', line: 2, column: 1 },
    ]);
    expect(messages(branch('<modify eventParameter="p"/>'))).toEqual(['missing_attribute: `modify` needs attribute `method`']);
    expect(messages(branch('<delay amount="1"/>'))).toEqual(['missing_attribute: `delay` needs attribute `unit`']);
    expect(messages(branch('<allow/>', '<event:boolean eventParameter="p"/>'))).toEqual([
      'missing_attribute: `event:boolean` needs attribute `default`',
    ]);
    expect(messages(branch('<allow/>', '<equals><constant:number/><constant:number value="1"/></equals>'))).toEqual([
      'missing_attribute: `constant:number` needs attribute `value`',
    ]);
    expect(messages(branch('<modify eventParameter="p" method="m"><parameter:string value="x"/></modify>'))).toEqual([
      'missing_attribute: `parameter:string` needs attribute `name`',
    ]);
  });

  it('reports unknown attributes at the attribute, including prototype names and foreign namespaces', () => {
    const line = '<mechanism event="urn:action:acme:act" constructor="x" xmlns:o="urn:o" o:event="y"><if><constant:true/><then/></if></mechanism>';
    expect(mustFail(policyXml(line))).toEqual([
      { code: 'unknown_attribute', message: 'unknown attribute `constructor` on `mechanism`', line: 2, column: line.indexOf('constructor') + 1 },
      { code: 'unknown_attribute', message: 'unknown attribute `o:event` on `mechanism`', line: 2, column: line.indexOf('o:event') + 1 },
    ]);
    expect(messages(branch('<allow reasn="typo"/>'))).toEqual(['unknown_attribute: unknown attribute `reasn` on `allow`; did you mean `reason`?']);
  });

  it.each([
    ['<delay amount="1" unit="DAYS"/>', 'attribute `unit` of `delay`: `DAYS` is not one of `MILLISECONDS`, `SECONDS`, `MINUTES`, `HOURS`'],
    ['<delay amount="-1" unit="SECONDS"/>', 'attribute `amount` of `delay`: `-1` is negative'],
    ['<delay amount="soon" unit="SECONDS"/>', 'attribute `amount` of `delay`: `soon` is not a number'],
    ['<delay amount="1e300" unit="HOURS"/>', 'attribute `amount` of `delay`: `1e300` hours is too long a delay'],
    ['<modify eventParameter="" method="m"/>', 'attribute `eventParameter` of `modify`: must not be empty'],
    ['<modify eventParameter="p" method=" "/>', 'attribute `method` of `modify`: must not be empty'],
    [
      '<modify eventParameter="p" method="m"><parameter:number name="n" value="ten"/></modify>',
      'attribute `value` of `parameter:number`: `ten` is not a number',
    ],
    [
      '<modify eventParameter="p" method="m"><parameter:string name="n" jsonPathQuery="$.a"/></modify>',
      'attribute `jsonPathQuery` of `parameter:string`: is only meaningful inside `eventOccurrence`',
    ],
  ])('refuses the bad value in %s', (decision, message) => {
    expect(messages(branch(decision))).toEqual([`invalid_attribute: ${message}`]);
  });

  it.each([
    ['<and mode="LAZY"><constant:true/></and>', 'attribute `mode` of `and`: `LAZY` is not one of `EAGER`'],
    ['<constant:boolean value="yes"/>', 'attribute `value` of `constant:boolean`: `yes` is not `true` or `false`'],
    ['<equals><constant:list value="[1, 2"/><constant:list value="[]"/></equals>', 'attribute `value` of `constant:list`: `[1, 2` is not valid json'],
    ['<equals><constant:object value="[1]"/><constant:object value="{}"/></equals>', 'attribute `value` of `constant:object`: `[1]` is not a json object'],
    ['<event:boolean eventParameter="p" default="maybe"/>', 'attribute `default` of `event:boolean`: `maybe` is not `true` or `false`'],
    ['<event:boolean eventParameter="p" default="false" jsonPathQuery="$.a["/>', 'attribute `jsonPathQuery` of `event:boolean`: `$.a[` is not a valid jsonpath'],
    ['<event:boolean eventParameter="" default="false"/>', 'attribute `eventParameter` of `event:boolean`: must not be empty'],
  ])('refuses the bad value in %s', (condition, message) => {
    const [only, ...rest] = messages(branch('<allow/>', condition));
    expect(rest).toEqual([]);
    expect(only!.startsWith(`invalid_attribute: ${message}`)).toBe(true);
  });

  it('accepts every optional attribute the language defines', () => {
    mustLoad(
      policyXml(
        '<mechanism event="urn:action:acme:act" id="m1" description="d"><if><or mode="EAGER"><and mode="EAGER"><constant:true/></and></or>' +
          '<then><modify eventParameter="p" method="m" jsonPathQuery="$.a" reason="r"><parameter:list name="l" value="[\'a\']"/></modify></then></if>' +
          '<else><allow reason="ok"/></else></mechanism>',
      ).replace('<policy id="urn:policy:acme:test"', '<policy id="urn:policy:acme:test" name="n" description="d"'),
    );
  });
});
