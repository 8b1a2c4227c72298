import { mustFail, mustLoad, policyXml } from '../support/policies';

const mechanism = (inner: string) => `<mechanism event="urn:action:acme:act"><if>${inner}</if></mechanism>`;
/** Column of the `occurrence`-th (1-based) `name="p"` on line 2, where every body starts. */
const columnOfName = (body: string, occurrence: number, name = 'p'): number => {
  let index = -1;
  for (let seen = 0; seen < occurrence; seen += 1) index = body.indexOf(`name="${name}"`, index + 1);
  return index + 1;
};

describe('duplicate parameters', () => {
  it('refuses a parameter name given twice in one execute, at the second name', () => {
    const body = mechanism(
      '<constant:true/><then><allow/><execute action="urn:action:acme:notify">' +
        '<parameter:string name="p" value="a"/><parameter:number name="p" value="1"/></execute></then>',
    );
    expect(mustFail(policyXml(body))).toEqual([
      {
        code: 'duplicate_parameter',
        message: 'parameter `p` is given more than once in one `execute`',
        line: 2,
        column: columnOfName(body, 2),
      },
    ]);
  });

  it('refuses a parameter name given twice in one pip query, also deep in a condition', () => {
    const body = mechanism(
      '<equals><pip:string method="urn:info:acme:owner" default="">' +
        '<parameter:string name="p" value="a"/><parameter:string name="q" value="b"/><parameter:string name="p" value="c"/>' +
        '</pip:string><constant:string value="x"/></equals><then><allow/></then>',
    );
    expect(mustFail(policyXml(body))).toEqual([
      {
        code: 'duplicate_parameter',
        message: 'parameter `p` is given more than once in one `pip:string`',
        line: 2,
        column: columnOfName(body, 2),
      },
    ]);
  });

  it('reports every repetition and looks into executes inside conditions', () => {
    const body = mechanism(
      '<execute action="urn:action:acme:check"><parameter:string name="p"/><parameter:string name="p"/><parameter:string name="p"/></execute>' +
        '<then><allow/></then>',
    );
    const diagnostics = mustFail(policyXml(body));
    expect(diagnostics.map((d) => [d.code, d.column])).toEqual([
      ['duplicate_parameter', columnOfName(body, 2)],
      ['duplicate_parameter', columnOfName(body, 3)],
    ]);
  });

  it('accepts the same name in different calls and different names in one call', () => {
    mustLoad(
      policyXml(
        mechanism(
          '<constant:true/><then><allow/>' +
            '<execute action="urn:action:acme:a"><parameter:string name="p" value="1"/><parameter:string name="q" value="2"/></execute>' +
            '<execute action="urn:action:acme:b"><parameter:string name="p" value="1"/></execute></then>',
        ),
      ),
    );
  });
});
