import { formatWarning, parseComponentUrn, parseUrn, parseWarnings, policySubjects, problemType, ALL_SCOPES, SCOPES, WARNING_CODES } from '@custos/contracts';

describe('URNs', () => {
  it('splits a policy URN into solution and name', () => {
    expect(parseUrn('policy', 'urn:policy:acme:mask-names')).toEqual({ kind: 'policy', solution: 'acme', name: 'mask-names' });
  });

  it.each([
    ['upper-case solution', 'urn:policy:Acme:p'],
    ['missing name', 'urn:policy:acme:'],
    ['extra segment', 'urn:policy:acme:p:q'],
    ['other kind', 'urn:action:acme:p'],
    ['slash in the name', 'urn:policy:acme:a/b'],
    ['trailing newline', 'urn:policy:acme:p\n'],
  ])('refuses a policy URN with %s', (_why, text) => {
    expect(parseUrn('policy', text)).toBeUndefined();
  });

  it('lets names mix case', () => {
    expect(parseUrn('action', 'urn:action:acme:Show.Employee_1')?.name).toBe('Show.Employee_1');
  });

  it('reads a component URN and upper-cases its type', () => {
    expect(parseComponentUrn('urn:component:acme:pip:hr')).toEqual({ solution: 'acme', type: 'PIP', name: 'hr' });
    expect(parseComponentUrn('urn:component:acme:PIP:hr')).toBeUndefined();
    expect(parseComponentUrn('urn:component:acme:gateway:hr')).toBeUndefined();
  });
});

describe('NATS subjects', () => {
  it('puts every subject under the prefix', () => {
    expect(policySubjects('custos')).toEqual({
      stream: 'custos_policy_changes',
      changes: 'custos.policy.changes',
      snapshot: 'custos.policy.snapshot',
    });
  });

  it('keeps stream names legal for prefixes with dashes', () => {
    expect(policySubjects('my-stack').stream).toBe('my-stack_policy_changes');
  });
});

describe('scopes and problems', () => {
  it('lists every scope once', () => {
    expect(new Set(ALL_SCOPES).size).toBe(Object.keys(SCOPES).length);
    expect(ALL_SCOPES).toContain('event:decide');
  });

  it('names problem types by code', () => {
    expect(problemType('not_found')).toBe('urn:custos:problem:not_found');
  });
});

describe('warnings (Custos-Warning)', () => {
  it('round-trip through the header, several lines joined as fetch joins them, quotes and backslashes escaped', () => {
    const first = { code: WARNING_CODES.egressRefusedByDefault, message: 'a "quoted" \\ back, slash', path: 'urls[0]' };
    const second = { code: 'other', message: 'no path; a semicolon' };
    const joined = [formatWarning(first), formatWarning(second)].join(', ');
    expect(joined).toBe('"a \\"quoted\\" \\\\ back, slash";code="egress_refused_by_default";path="urls[0]", "no path; a semicolon";code="other"');
    expect(parseWarnings(joined)).toEqual([first, second]);
  });

  it('keep header values printable ASCII, and skip members a client does not understand', () => {
    expect(formatWarning({ code: 'x', message: 'caf\u00e9\nline' })).toBe('"caf??line";code="x"');
    expect(parseWarnings('token, "no code";path="a", "kept";code="c";future="1"')).toEqual([{ code: 'c', message: 'kept' }]);
    expect(parseWarnings(null)).toEqual([]);
  });
});
