import { parseXml } from 'libxmljs2';
import { POLICY_SCHEMA } from '../../src/validate/schema/policy-schema';
import { LIBXML_OPTIONS } from '../../src/xml/limits';
import { mustFail, mustLoad, policyXml } from '../support/policies';

/** The schema on its own: it must hold the structure even where the semantic passes would not look. */
function errorsOf(normalized: string): string[] {
  const document = parseXml(normalized, LIBXML_OPTIONS);
  const schema = parseXml(POLICY_SCHEMA, LIBXML_OPTIONS);
  return document.validate(schema) ? [] : document.validationErrors.map((error) => `${error.line}: ${error.message.trim()}`);
}

describe('policy schema', () => {
  it('accepts the normalized form of a policy with every kind of element', () => {
    expect(
      errorsOf(
        [
          '<policy id="">',
          '<variableDeclaration type="number" name=""><plus><constant type="number" value=""/><pip type="number" method="" default=""><parameter type="string" name="" value=""/></pip></plus></variableDeclaration>',
          '<mechanism event="">',
          '<if><and mode=""><constant.true/><count><eventOccurrence event=""/><when><start time=""><eventOccurrence event="" mode=""/></start></when></count></and>',
          '<then><modify eventParameter="" method=""/><delay amount="" unit=""/><execute action=""/></then></if>',
          '<else/><execute action=""/></mechanism></policy>',
        ].join(''),
      ),
    ).toEqual([]);
  });

  it('refuses misplaced elements, wrong counts and unknown or missing attributes', () => {
    expect(errorsOf('<policy id="">\n<mechanism event="">\n<if>\n<then/></if></mechanism></policy>')).toEqual([
      expect.stringMatching(/^4: Element 'then': This element is not expected/),
    ]);
    expect(errorsOf('<policy id="">\n<mechanism event="">\n<if>\n<not>\n<constant.true/>\n<constant.true/></not>\n<then/></if></mechanism></policy>')[0]).toMatch(/^6: /);
    expect(errorsOf('<policy>\n<mechanism event="" colour="">\n<if>\n<constant.true/>\n<then/></if></mechanism></policy>')).toEqual([
      expect.stringMatching(/^1: .*'id' is required/),
      expect.stringMatching(/^2: .*'colour' is not allowed/),
    ]);
    expect(errorsOf('<policy id="">\n<mechanism event="">\n<if>\n<event type="text" eventParameter="" default=""/>\n<then/></if></mechanism></policy>')).toEqual([
      expect.stringMatching(/^4: .*'type'/),
    ]);
  });

  it('leaves the messages to the semantic passes where they report the same problem', () => {
    const diagnostics = mustFail(policyXml('<mechanism event="urn:action:acme:act"><if><then><allow/></then></if></mechanism>'));
    expect(diagnostics.map((item) => item.code)).toEqual(['missing_element']);
  });

  it('accepts what the passes accept, with any prefixes and the 3.2.46 namespaces', () => {
    mustLoad(
      '<p:policy id="urn:policy:acme:x" xmlns:p="http://www.iese.fraunhofer.de/ind2uce/3.2.46/ind2uceLanguage" xmlns:e="http://www.iese.fraunhofer.de/ind2uce/3.2.46/event">' +
        '<p:mechanism event="urn:action:acme:act"><p:if><e:boolean eventParameter="b" default="false"/><p:then><p:inhibit/></p:then></p:if></p:mechanism></p:policy>',
    );
  });
});
