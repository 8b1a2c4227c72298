import { prescan } from '../../src/xml/prescan';
import { XML_LIMITS } from '../../src/xml/limits';

function refusal(text: string) {
  const outcome = prescan(text);
  if (outcome.ok) throw new Error('expected the prescan to refuse the text');
  return outcome.diagnostic;
}

describe('prescan', () => {
  it('records start tags and attributes with their lines and columns', () => {
    const outcome = prescan('<?xml version="1.0"?>\n<a x="1">\n  <p:b  y = \'2\' p:z="3"/>\n</a>');
    if (!outcome.ok) throw new Error('refused');
    expect(outcome.complete).toBe(true);
    expect(outcome.tags.map((tag) => tag.qualifiedName)).toEqual(['a', 'p:b']);
    const inner = outcome.tags[1]!;
    expect(outcome.lines.locate(inner.offset)).toEqual({ line: 3, column: 3 });
    expect(inner.attributes.map((attribute) => [attribute.qualifiedName, outcome.lines.locate(attribute.offset)])).toEqual([
      ['y', { line: 3, column: 9 }],
      ['p:z', { line: 3, column: 17 }],
    ]);
  });

  it('records namespace declarations and where the root element ends', () => {
    const text = '<a xmlns="urn:d" xmlns:p=\'urn:p\' k="v"><p:b xmlns:q="urn:q"/></a>  <b/>';
    const outcome = prescan(text);
    if (!outcome.ok) throw new Error('refused');
    expect(outcome.declarations).toEqual([
      { prefix: '', uri: 'urn:d' },
      { prefix: 'p', uri: 'urn:p' },
      { prefix: 'q', uri: 'urn:q' },
    ]);
    expect(outcome.rootEnd).toBe(text.indexOf('</a>') + 4);
    const selfClosing = prescan('<a/><b/>');
    expect(selfClosing.ok && selfClosing.rootEnd).toBe(4);
    const open = prescan('<a><b/>');
    expect(open.ok && open.rootEnd).toBeNull();
  });

  it('skips comments, CDATA and processing instructions, even when they contain markup', () => {
    const outcome = prescan('<!-- <x> --><?pi <y>?><a><![CDATA[<z>]]></a>');
    if (!outcome.ok) throw new Error('refused');
    expect(outcome.tags.map((tag) => tag.qualifiedName)).toEqual(['a']);
  });

  it.each([
    ['at the start', '<!DOCTYPE a><a/>', 1, 1],
    ['after the xml declaration', '<?xml version="1.0"?>\n<!DOCTYPE a []>\n<a/>', 2, 1],
    ['after comments and processing instructions', '<?xml version="1.0"?><!-- c --><?pi x?>\n  <!DOCTYPE a SYSTEM "x"><a/>', 2, 3],
    ['after the root (never legal, still refused)', '<a/><!DOCTYPE a>', 1, 5],
  ])('refuses a DOCTYPE %s', (_, text, line, column) => {
    expect(refusal(text)).toEqual({
      code: 'doctype_forbidden',
      message: 'a document type declaration (DOCTYPE) is not allowed',
      line,
      column,
    });
  });

  it('refuses an entity declaration anywhere, even inside a comment', () => {
    expect(refusal('<a><!-- <!ENTITY x "y"> --></a>')).toMatchObject({ code: 'entity_forbidden', line: 1, column: 9 });
  });

  it('refuses other markup declarations, including a lower-case doctype', () => {
    expect(refusal('<!doctype a><a/>')).toMatchObject({ code: 'markup_declaration_forbidden', message: 'markup declaration `<!doctype` is not allowed' });
    expect(refusal('<a><!ELEMENT a ANY></a>').code).toBe('markup_declaration_forbidden');
  });

  it('refuses a nul character, which the native parser would read as the end of the text', () => {
    expect(refusal('<a/>\u0000<b/>')).toMatchObject({ code: 'malformed_xml', line: 1, column: 5 });
  });

  it('enforces the size limit in bytes, not characters', () => {
    const multiByte = `<a x="${'é'.repeat(XML_LIMITS.maxBytes / 2)}"/>`;
    expect(multiByte.length).toBeLessThan(XML_LIMITS.maxBytes);
    expect(refusal(multiByte).code).toBe('document_too_large');
  });

  it('accepts exactly the depth limit and refuses one more', () => {
    const nested = (depth: number) => '<a>'.repeat(depth) + '</a>'.repeat(depth);
    expect(prescan(nested(XML_LIMITS.maxDepth)).ok).toBe(true);
    expect(refusal(nested(XML_LIMITS.maxDepth + 1))).toMatchObject({ code: 'too_deep', line: 1, column: 301 });
  });

  it('counts self-closing elements towards the element limit but not the depth', () => {
    const elements = (count: number) => `<a>${'<b/>'.repeat(count - 1)}</a>`;
    expect(prescan(elements(XML_LIMITS.maxElements)).ok).toBe(true);
    expect(refusal(elements(XML_LIMITS.maxElements + 1)).code).toBe('too_many_elements');
  });

  it('accepts the attribute count at the limit and refuses one more, naming the element', () => {
    const element = (count: number) => `<a>\n <b ${Array.from({ length: count }, (_, i) => `x${i}='1'`).join(' ')}/></a>`;
    expect(prescan(element(XML_LIMITS.maxAttributesPerElement)).ok).toBe(true);
    expect(refusal(element(XML_LIMITS.maxAttributesPerElement + 1))).toMatchObject({
      code: 'too_many_attributes',
      message: 'element `b` has more than 64 attributes',
      line: 2,
      column: 2,
    });
  });

  it('accepts an attribute value at the limit and refuses a longer one, naming the attribute', () => {
    const attribute = (length: number) => `<a>\n <b big='${'x'.repeat(length)}'/></a>`;
    expect(prescan(attribute(XML_LIMITS.maxAttributeValueLength)).ok).toBe(true);
    expect(refusal(attribute(XML_LIMITS.maxAttributeValueLength + 1))).toMatchObject({
      code: 'attribute_too_large',
      message: 'the value of attribute `big` is longer than 65536 characters',
      line: 2,
      column: 5,
    });
  });

  it('reports an incomplete scan instead of guessing when the syntax breaks', () => {
    const outcome = prescan('<a><b x=1/></a>');
    expect(outcome.ok && outcome.complete).toBe(false);
  });
});
