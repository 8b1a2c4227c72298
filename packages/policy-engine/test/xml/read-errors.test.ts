import { loadPolicy } from '../../src';
import { loadTimer } from '../../src/timer/read-timer';
import { readXml } from '../../src/xml/read-xml';

const LANGUAGE = 'http://www.mydata-control.de/4.0/mydataLanguage';
const OLD = 'http://www.iese.fraunhofer.de/ind2uce/3.2.46';

function failure(text: string) {
  const outcome = readXml(text);
  if (outcome.ok) throw new Error('expected a failure');
  return outcome.diagnostics;
}

/** 1-based line and column of the first `needle` in `text`. */
function at(text: string, needle: string, from = 0): { line: number; column: number } {
  const offset = text.indexOf(needle, from);
  if (offset < 0) throw new Error(`no ${needle}`);
  const before = text.slice(0, offset).split('\n');
  return { line: before.length, column: (before[before.length - 1] ?? '').length + 1 };
}

const condition = (expression: string, declarations = `xmlns="${LANGUAGE}"`) =>
  `<policy ${declarations} id="urn:policy:acme:p">\n<mechanism event="urn:action:acme:act"><if>${expression}<then><allow/></then></if></mechanism>\n</policy>`;

describe('undeclared prefixes', () => {
  it('names the declaration to add, once per prefix, where the prefix is first used', () => {
    const xml = condition(
      '<equals><event:string eventParameter="a" default=""/><event:string eventParameter="b" default=""/><constant:string value="x"/></equals>',
    );
    expect(failure(xml)).toEqual([
      {
        code: 'malformed_xml',
        message:
          'malformed xml: namespace prefix event on string is not defined; add `xmlns:event="http://www.mydata-control.de/4.0/event"` to the root element',
        ...at(xml, '<event:string'),
      },
      {
        code: 'malformed_xml',
        message:
          'malformed xml: namespace prefix constant on string is not defined; add `xmlns:constant="http://www.mydata-control.de/4.0/constant"` to the root element',
        ...at(xml, '<constant:string'),
      },
    ]);
  });

  it('names the 3.2.46 namespace in a 3.2.46 document, and the namespace of xsi', () => {
    const old = condition('<pip:boolean method="urn:info:acme:m" default="false"/>', `xmlns="${OLD}/ind2uceLanguage"`);
    expect(failure(old)).toEqual([
      expect.objectContaining({
        message: `malformed xml: namespace prefix pip on boolean is not defined; add \`xmlns:pip="${OLD}/pip"\` to the root element`,
        ...at(old, '<pip:boolean'),
      }),
    ]);
    const xsi = `<policy xmlns="${LANGUAGE}" xsi:schemaLocation="x" id="urn:policy:acme:p"/>`;
    expect(failure(xsi)).toEqual([
      expect.objectContaining({
        message: expect.stringMatching(/; add `xmlns:xsi="http:\/\/www\.w3\.org\/2001\/XMLSchema-instance"` to the root element$/),
        ...at(xsi, 'xsi:schemaLocation'),
      }),
    ]);
  });

  it('says a prefix the language does not use is not declared', () => {
    const xml = condition('<foo:bar/>');
    expect(failure(xml)).toEqual([
      {
        code: 'malformed_xml',
        message: 'malformed xml: namespace prefix foo on bar is not defined; `foo` is not a prefix of the language: declare its namespace',
        ...at(xml, '<foo:bar'),
      },
    ]);
  });

  it('reports a document without any mydata namespace once, at its root, with every declaration it needs', () => {
    const xml = `<policy id="urn:policy:acme:p">\n<mechanism event="urn:action:acme:act"><if><and>${'<event:boolean eventParameter="a" default="false"/>'.repeat(20)}<q:x/></and><then><allow/></then></if></mechanism>\n</policy>`;
    expect(failure(xml)).toEqual([
      {
        code: 'malformed_xml',
        message:
          'malformed xml: namespace prefix event on boolean is not defined; the document declares no mydata namespace: ' +
          `add \`xmlns="${LANGUAGE}"\` \`xmlns:event="http://www.mydata-control.de/4.0/event"\` to the root element; declare the namespace of \`q\``,
        line: 1,
        column: 1,
      },
    ]);
  });

  it('suggests the timer namespace for a timer root, through loadTimer', () => {
    const outcome = loadTimer('<timer id="urn:timer:acme:t" cron="* * * * * ?"><event action="urn:action:acme:a"><parameter:string name="p" value="v"/></event></timer>');
    expect(outcome).toEqual({
      ok: false,
      diagnostics: [
        {
          code: 'malformed_xml',
          message:
            'malformed xml: namespace prefix parameter on string is not defined; the document declares no mydata namespace: ' +
            'add `xmlns="http://www.mydata-control.de/4.0/mydataLanguageTimer"` `xmlns:parameter="http://www.mydata-control.de/4.0/parameter"` to the root element',
          line: 1,
          column: 1,
        },
      ],
    });
  });
});

describe('one document per request', () => {
  const ONE = 'malformed xml: the document goes on after its root element `policy` ends; send one document per request';

  it('points at a second root element', () => {
    const xml = `<policy xmlns="${LANGUAGE}" id="urn:policy:acme:a"/>\n<policy xmlns="${LANGUAGE}" id="urn:policy:acme:b"/>`;
    expect(loadPolicy(xml)).toEqual({ ok: false, diagnostics: [{ code: 'malformed_xml', message: ONE, line: 2, column: 1 }] });
  });

  it('points at the declaration of a second document, past comments and space', () => {
    const xml = `<?xml version="1.0"?>\n<policy xmlns="${LANGUAGE}"></policy>\n<!-- next -->\n  <?xml version="1.0"?>\n<policy xmlns="${LANGUAGE}"/>`;
    expect(failure(xml)).toEqual([{ code: 'malformed_xml', message: ONE, line: 4, column: 3 }]);
  });

  it('points at text after the root element', () => {
    expect(failure('<policy/>\n\n  trailing')).toEqual([{ code: 'malformed_xml', message: ONE, line: 3, column: 3 }]);
  });
});
