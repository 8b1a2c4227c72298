import { parseComponentUrn, parseUrn, policySubjects, problemType, ALL_SCOPES, SCOPES } from '@custos/contracts';

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
