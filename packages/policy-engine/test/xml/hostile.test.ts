import { loadPolicy } from '../../src';
import { DECLARATIONS, policyXml } from '../support/policies';

/**
 * Documents built to hurt an XML reader. Each must be refused with the expected code and without taking the process
 * down: several of them abort a process that lets libxmljs2 expand them, and the others would run for minutes (past
 * the test's timeout), so reaching the end of this file at all is part of the assertion — no clock is read here.
 */
const VALID_BODY = `<mechanism event="urn:action:acme:act"><if><constant:true/><then><allow/></then></if></mechanism>`;
const ROOT_OPEN = `<policy id="urn:policy:acme:hostile" ${DECLARATIONS}>`;

function billionLaughs(): string {
  const entities = ['<!ENTITY lol0 "lol">'];
  for (let level = 1; level <= 9; level += 1) {
    entities.push(`<!ENTITY lol${level} "${`&lol${level - 1};`.repeat(10)}">`);
  }
  return `<?xml version="1.0"?>\n<!DOCTYPE policy [\n${entities.join('\n')}\n]>\n${ROOT_OPEN}<mechanism event="&lol9;"/></policy>`;
}

function quadraticBlowup(): string {
  const big = 'x'.repeat(100_000);
  return `<!DOCTYPE policy [<!ENTITY big "${big}">]>${ROOT_OPEN}<mechanism event="urn:action:acme:a">${'&big;'.repeat(20_000)}</mechanism></policy>`;
}

const HOSTILE: Array<[string, () => string, string]> = [
  ['billion laughs', billionLaughs, 'doctype_forbidden'],
  ['quadratic blowup', quadraticBlowup, 'doctype_forbidden'],
  ['external entity (XXE)', () => `<?xml version="1.0"?><!DOCTYPE policy [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>${ROOT_OPEN}&xxe;</policy>`, 'doctype_forbidden'],
  ['external DTD', () => `<!DOCTYPE policy SYSTEM "http://127.0.0.1:9/evil.dtd">${ROOT_OPEN}${VALID_BODY}</policy>`, 'doctype_forbidden'],
  ['parameter entity', () => `<!DOCTYPE policy [<!ENTITY % p SYSTEM "http://127.0.0.1:9/p"> %p;]>${ROOT_OPEN}</policy>`, 'doctype_forbidden'],
  ['entity declaration without a doctype', () => `${ROOT_OPEN}<!ENTITY x "y">${VALID_BODY}</policy>`, 'entity_forbidden'],
  ['entity reference without a declaration', () => `${ROOT_OPEN}&xxe;${VALID_BODY}</policy>`, 'malformed_xml'],
  ['deep nesting', () => `${ROOT_OPEN}${'<and>'.repeat(100_000)}${'</and>'.repeat(100_000)}</policy>`, 'too_deep'],
  ['too many elements', () => policyXml(`<mechanism event="urn:action:acme:a">${'<execute action="urn:action:acme:x"/>'.repeat(60_000)}</mechanism>`), 'too_many_elements'],
  ['huge attribute', () => policyXml(`<mechanism event="urn:action:acme:${'a'.repeat(1024 * 1024)}"/>`), 'attribute_too_large'],
  ['thousands of attributes on one element', () => policyXml(`<mechanism event="urn:action:acme:a" ${Array.from({ length: 20_000 }, (_, i) => `a${i}="x"`).join(' ')}/>`), 'too_many_attributes'],
  ['document over 5 MiB', () => policyXml(`<!--${'x'.repeat(6 * 1024 * 1024)}-->${VALID_BODY}`), 'document_too_large'],
];

describe('hostile xml', () => {
  it.each(HOSTILE)('refuses %s', (_, build, code) => {
    const outcome = loadPolicy(build());
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) expect(outcome.diagnostics.map((item) => item.code)).toEqual([code]);
  });

  it('does not follow an XInclude: it is an unknown element, and nothing is read from disk', () => {
    const outcome = loadPolicy(
      policyXml(`<xi:include xmlns:xi="http://www.w3.org/2001/XInclude" href="file:///etc/passwd" parse="text"/>${VALID_BODY}`),
    );
    expect(outcome).toEqual({
      ok: false,
      diagnostics: [
        {
          code: 'unknown_element',
          message: 'unknown element `include` in namespace `http://www.w3.org/2001/XInclude`',
          line: 2,
          column: 1,
        },
      ],
    });
  });

  it('still decides normally after all of the above', () => {
    expect(loadPolicy(policyXml(VALID_BODY)).ok).toBe(true);
  });
});
