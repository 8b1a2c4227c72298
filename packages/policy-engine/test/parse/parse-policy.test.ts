import type { ElementNode } from '../../src/ast/nodes';
import { parsePolicy } from '../../src/parse/parse-policy';
import { readXml } from '../../src/xml/read-xml';

function parse(text: string) {
  const read = readXml(text);
  if (!read.ok) throw new Error(JSON.stringify(read.diagnostics));
  return parsePolicy(read.root);
}

function tree(text: string): ElementNode {
  const outcome = parse(text);
  if (!outcome.ok) throw new Error(JSON.stringify(outcome.diagnostics));
  expect(outcome.diagnostics).toEqual([]);
  return outcome.policy;
}

function names(node: ElementNode): string[] {
  return [node.name, ...node.children.flatMap(names)];
}

const BODY = '<mechanism event="urn:action:a:b"><if><c:true/><then><allow/></then></if></mechanism>';

describe('parsePolicy', () => {
  it('names elements by language, whatever prefixes the author chose', () => {
    const conventional = tree(
      `<policy id="urn:policy:a:b" xmlns="http://www.mydata-control.de/4.0/mydataLanguage" xmlns:c="http://www.mydata-control.de/4.0/constant">${BODY}</policy>`,
    );
    const prefixed = tree(
      `<my:policy id="urn:policy:a:b" xmlns:my="http://www.mydata-control.de/4.0/mydataLanguage" xmlns:k="http://www.mydata-control.de/4.0/constant">` +
        '<my:mechanism event="urn:action:a:b"><my:if><k:true/><my:then><my:allow/></my:then></my:if></my:mechanism></my:policy>',
    );
    const expected = ['policy', 'mechanism', 'if', 'constant:true', 'then', 'allow'];
    expect(names(conventional)).toEqual(expected);
    expect(names(prefixed)).toEqual(expected);
  });

  it('maps the 3.2.46 ind2uce namespaces onto 4.0', () => {
    const policy = tree(
      `<policy id="urn:policy:a:b" xmlns="http://www.iese.fraunhofer.de/ind2uce/3.2.46/ind2uceLanguage" xmlns:c="http://www.iese.fraunhofer.de/ind2uce/3.2.46/constant">${BODY}</policy>`,
    );
    expect(names(policy)).toEqual(['policy', 'mechanism', 'if', 'constant:true', 'then', 'allow']);
  });

  it('refuses the 3.0.25 enforcement language, naming it', () => {
    const outcome = parse('<policy xmlns="http://www.iese.fraunhofer.de/ind2uce/3.0.25/enforcementLanguage"/>');
    expect(outcome.ok).toBe(false);
    expect(outcome.diagnostics).toHaveLength(1);
    expect(outcome.diagnostics[0]).toMatchObject({ code: 'unsupported_language', line: 1, column: 1 });
    expect(outcome.diagnostics[0]!.message).toContain('`http://www.iese.fraunhofer.de/ind2uce/3.0.25/enforcementLanguage`');
    expect(outcome.diagnostics[0]!.message).toContain('3.0.25 enforcement language');
  });

  it.each([
    ['a policy without namespace', '<policy id="urn:policy:a:b"/>', 'found `policy` (no namespace)'],
    ['another root', '<timer xmlns="http://www.mydata-control.de/4.0/mydataLanguage"/>', 'found `timer`'],
    ['a foreign namespace', '<policy xmlns="urn:other"/>', 'found `policy` in namespace `urn:other`'],
  ])('refuses %s as root', (_, text, found) => {
    const outcome = parse(text);
    expect(outcome.ok).toBe(false);
    expect(outcome.diagnostics).toEqual([
      {
        code: 'wrong_root',
        message: `the root element must be \`policy\` in namespace \`http://www.mydata-control.de/4.0/mydataLanguage\`, ${found}`,
        line: 1,
        column: 1,
      },
    ]);
  });

  it('reports every unknown element and leaves it out of the tree', () => {
    const outcome = parse(
      '<policy id="urn:policy:a:b" xmlns="http://www.mydata-control.de/4.0/mydataLanguage" xmlns:c="http://www.mydata-control.de/4.0/constant" xmlns:f="http://www.mydata-control.de/4.0/function">\n' +
        '<mechanism event="urn:action:a:b"><bogus/><c:strin value="x"/><f:x/></mechanism>\n</policy>',
    );
    if (!outcome.ok) throw new Error('refused');
    expect(outcome.diagnostics).toEqual([
      { code: 'unknown_element', message: 'unknown element `bogus`', line: 2, column: 35 },
      { code: 'unknown_element', message: 'unknown element `constant:strin`; did you mean `constant:string`?', line: 2, column: 43 },
      {
        code: 'unknown_element',
        message: 'unknown element `x` in namespace `http://www.mydata-control.de/4.0/function`',
        line: 2,
        column: 63,
      },
    ]);
    expect(names(outcome.policy)).toEqual(['policy', 'mechanism']);
  });

  it('reports stray text but not whitespace', () => {
    const outcome = parse(
      '<policy id="urn:policy:a:b" xmlns="http://www.mydata-control.de/4.0/mydataLanguage">\n  <mechanism event="urn:action:a:b">\n oops </mechanism>\n</policy>',
    );
    expect(outcome.diagnostics).toEqual([{ code: 'unexpected_text', message: 'unexpected text `oops` in `mechanism`', line: 3 }]);
  });

  it('keeps attributes with their locations and ignores xsi and xml attributes', () => {
    const policy = tree(
      '<policy id="urn:policy:a:b" xmlns="http://www.mydata-control.de/4.0/mydataLanguage" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"' +
        ' xsi:schemaLocation="x y" xml:lang="en" name="n"/>',
    );
    expect([...policy.attributes.keys()]).toEqual(['id', 'name']);
    expect(policy.attributes.get('id')).toEqual({ name: 'id', value: 'urn:policy:a:b', location: { line: 1, column: 9 } });
  });

  it('keeps every element of the language as written, valid or not, for the validation to judge', () => {
    const policy = tree(
      '<policy id="urn:policy:a:b" xmlns="http://www.mydata-control.de/4.0/mydataLanguage" xmlns:pip="http://www.mydata-control.de/4.0/pip">' +
        '<mechanism event="urn:action:a:b"><if><xor><pip:boolean method="urn:info:a:m" default="false"/></xor><then/></if></mechanism></policy>',
    );
    expect(names(policy)).toEqual(['policy', 'mechanism', 'if', 'xor', 'pip:boolean', 'then']);
    expect(policy.children[0]!.children[0]!.children[0]!.info).toMatchObject({ role: 'expression', resultType: 'boolean' });
  });
});
