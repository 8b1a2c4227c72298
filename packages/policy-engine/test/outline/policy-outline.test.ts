import { outlinePolicy } from '../../src';

const POLICY = `<policy xmlns="http://www.mydata-control.de/4.0/mydataLanguage" id="urn:policy:acme:p">
  <mechanism event="urn:action:acme:a">
    <if><constant:true xmlns:constant="http://www.mydata-control.de/4.0/constant"/><then><allow/></then></if>
    <elseif><constant:false xmlns:constant="http://www.mydata-control.de/4.0/constant"/><then><inhibit/></then></elseif>
    <elseif><constant:false xmlns:constant="http://www.mydata-control.de/4.0/constant"/><then><inhibit/></then></elseif>
    <else><inhibit/></else>
  </mechanism>
  <mechanism event="urn:action:acme:b">
    <if><constant:true xmlns:constant="http://www.mydata-control.de/4.0/constant"/><then><allow/></then></if>
  </mechanism>
</policy>`;

describe('policy outline', () => {
  it('lists each mechanism with its branches, named and located as written', () => {
    const outline = outlinePolicy(POLICY);
    expect(outline?.id).toBe('urn:policy:acme:p');
    expect(outline?.mechanisms.map((m) => [m.mechanism, m.event, m.line])).toEqual([
      [0, 'urn:action:acme:a', 2],
      [1, 'urn:action:acme:b', 8],
    ]);
    expect(outline?.mechanisms[0]?.branches.map((b) => [b.branch, b.line, b.column])).toEqual([
      [{ kind: 'if', index: 0 }, 3, 5],
      [{ kind: 'elseif', index: 0 }, 4, 5],
      [{ kind: 'elseif', index: 1 }, 5, 5],
      [{ kind: 'else' }, 6, 5],
    ]);
    expect(outline?.mechanisms[1]?.branches.map((b) => [b.branch, b.line, b.column])).toEqual([
      [{ kind: 'if', index: 0 }, 9, 5],
      [{ kind: 'none' }, 8, 3],
    ]);
  });

  it('answers null for text that is not a policy', () => {
    expect(outlinePolicy('<policy')).toBeNull();
    expect(outlinePolicy('<timer xmlns="http://www.mydata-control.de/4.0/mydataLanguageTimer"/>')).toBeNull();
  });
});
