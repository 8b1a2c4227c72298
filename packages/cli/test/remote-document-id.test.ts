import { kindOfId, rootIdOf, solutionOfId } from '../src/remote/document-id';

describe('rootIdOf', () => {
  it('reads the id of the root element after a declaration, comments and processing instructions', () => {
    const xml = `\uFEFF<?xml version="1.0"?>\n<!-- a comment with <policy id="urn:policy:acme:decoy"> -->\n<?pi x?>\n<policy xmlns="x"\n  name='n' id='urn:policy:acme:real'>\n  <mechanism id="urn:policy:acme:inner"/></policy>`;
    expect(rootIdOf(xml)).toBe('urn:policy:acme:real');
  });

  it('does not take an attribute that merely ends in id', () => {
    expect(rootIdOf('<timer xmlns="t" cron="* * * * * ?" eventid="no" id="urn:timer:acme:t"/>')).toBe('urn:timer:acme:t');
    expect(rootIdOf('<policy eventid="urn:policy:acme:no"/>')).toBeUndefined();
  });

  it('is undefined for text without a root element', () => {
    expect(rootIdOf('not xml')).toBeUndefined();
    expect(rootIdOf('')).toBeUndefined();
  });
});

describe('ids', () => {
  it('tells policies from timers and finds the solution', () => {
    expect(kindOfId('urn:policy:acme:a')).toBe('policy');
    expect(kindOfId('urn:timer:acme:a')).toBe('timer');
    expect(kindOfId('urn:action:acme:a')).toBeUndefined();
    expect(solutionOfId('urn:policy:acme:a')).toBe('acme');
    expect(solutionOfId('urn:policy:acme')).toBeUndefined();
  });
});
