import { closestName, loadPolicy } from '../../src';
import { mechanismXml, policyXml } from '../support/policies';

const problems = (body: string) => {
  const outcome = loadPolicy(policyXml(body));
  if (outcome.ok) throw new Error('expected the policy to be refused');
  return outcome.diagnostics.map((item) => `${item.line ?? '?'} ${item.code}: ${item.message}`);
};
const ifThen = (condition: string) => mechanismXml(`<if>${condition}<then><allow/></then></if>`);

describe('did you mean', () => {
  it('names the closest element of the same namespace, and nothing else about the element that lost its child', () => {
    expect(problems(ifThen('<equal><constant:string value="a"/><constant:string value="b"/></equal>'))).toEqual([
      '2 unknown_element: unknown element `equal`; did you mean `equals`?',
    ]);
    expect(problems(ifThen('<equals><event:strng eventParameter="x" default=""/><constant:string value="b"/></equals>'))).toEqual([
      '2 unknown_element: unknown element `event:strng`; did you mean `event:string`?',
    ]);
  });

  it('names the closest namespace of the language for an element in a misspelt one', () => {
    const element = '<e:string xmlns:e="http://www.mydata-control.de/4.0/evnt" eventParameter="x" default=""/>';
    expect(problems(ifThen(`<equals>${element}<constant:string value="b"/></equals>`))).toEqual([
      '2 unknown_element: unknown element `string` in namespace `http://www.mydata-control.de/4.0/evnt`; did you mean namespace `http://www.mydata-control.de/4.0/event`?',
    ]);
  });

  it('names the closest attribute, and does not also call the attribute it was meant to be missing', () => {
    expect(problems('<mechanism evnt="urn:action:acme:act"><if><constant:true/><then><allow/></then></if></mechanism>')).toEqual([
      '2 unknown_attribute: unknown attribute `evnt` on `mechanism`; did you mean `event`?',
    ]);
  });

  it('still reports the problems of an element that do not follow from its unknown child', () => {
    // The `if` lost its condition to `equls`; the mechanism's missing `event` is a problem of its own.
    expect(problems('<mechanism><if><equls/><then><allow/></then></if></mechanism>')).toEqual([
      '2 missing_attribute: `mechanism` needs attribute `event`',
      '2 unknown_element: unknown element `equls`; did you mean `equals`?',
    ]);
  });

  it('suggests nothing when no name is close', () => {
    expect(problems(ifThen('<banana/>'))).toEqual(['2 unknown_element: unknown element `banana`']);
  });

  it('allows more edits the longer the name is, swaps of neighbours counting as one', () => {
    expect(closestName('lses', ['less', 'plus'])).toBe('less');
    expect(closestName('gretaerEqual', ['greaterEqual', 'greater'])).toBe('greaterEqual');
    expect(closestName('ab', ['xy'])).toBeNull();
    expect(closestName('view-documnet', ['view-document', 'view-documents-list'])).toBe('view-document');
  });
});
