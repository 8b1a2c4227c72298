import { readXml } from '../../src/xml/read-xml';
import type { XmlElement } from '../../src/xml/xml-tree';

function root(text: string): XmlElement {
  const outcome = readXml(text);
  if (!outcome.ok) throw new Error(JSON.stringify(outcome.diagnostics));
  return outcome.root;
}

function failure(text: string) {
  const outcome = readXml(text);
  if (outcome.ok) throw new Error('expected a failure');
  return outcome.diagnostics;
}

describe('readXml', () => {
  it('resolves namespaces and locates elements and attributes', () => {
    const tree = root('<?xml version="1.0"?>\n<p:a xmlns:p="urn:x" k="v">\n  <p:b p:z="w"/>\n</p:a>');
    expect(tree).toMatchObject({ namespaceUri: 'urn:x', localName: 'a', qualifiedName: 'p:a', location: { line: 2, column: 1 } });
    expect(tree.attributes).toEqual([
      { namespaceUri: null, localName: 'k', qualifiedName: 'k', value: 'v', location: { line: 2, column: 22 } },
    ]);
    const child = tree.children.find((node) => node.kind === 'element') as XmlElement;
    expect(child).toMatchObject({ localName: 'b', location: { line: 3, column: 3 } });
    expect(child.attributes[0]).toMatchObject({ namespaceUri: 'urn:x', localName: 'z', location: { line: 3, column: 8 } });
  });

  it('keeps text (including CDATA) and drops comments and processing instructions', () => {
    const tree = root('<a><!--c--><?pi x?>t&amp;<![CDATA[<d>]]></a>');
    expect(tree.children.map((node) => (node.kind === 'text' ? node.text : node.localName))).toEqual(['t&', '<d>']);
  });

  it('accepts a byte order mark before the declaration', () => {
    expect(root('\uFEFF<?xml version="1.0" encoding="UTF-8"?><a/>').localName).toBe('a');
  });

  it('turns malformed xml into a located diagnostic in our message style', () => {
    expect(failure('<a>\n  <b x="1" x="2"/></a>')).toEqual([
      { code: 'malformed_xml', message: 'malformed xml: attribute x redefined', line: 2, column: 17 },
    ]);
    expect(failure('<a>&undefined;</a>')).toEqual([
      { code: 'malformed_xml', message: 'malformed xml: entity `undefined` not defined', line: 1, column: 15 },
    ]);
  });

  it('reports an undeclared prefix, which libxml2 only records as an error', () => {
    const [problem] = failure('<a><q:b/></a>');
    expect(problem).toMatchObject({ code: 'malformed_xml', line: 1 });
    expect(problem!.message).toContain('namespace prefix q on b is not defined');
  });

  it('reports an empty document', () => {
    expect(failure('  \n')).toEqual([{ code: 'empty_document', message: 'the document is empty' }]);
  });

  it('does not pass on a DOCTYPE when the syntax before it confuses the prescan', () => {
    expect(failure('<a><b x=1/></a><!DOCTYPE a>')[0]!.code).toBe('doctype_forbidden');
  });
});
