import {
  AUTHZEN_PATHS,
  authzenAction,
  authzenMetadata,
  evaluationStops,
  evaluationsOf,
  modifiersSupported,
  semanticOf,
  toAuthZenDecision,
  toCustosEvent,
  type AuthorizationDecision,
  type CompleteEvaluation,
} from '@custos/contracts';

const alice = { type: 'user', id: 'alice@example.com' };
const doc = (id: string) => ({ type: 'document', id });

describe('AuthZEN action names', () => {
  it('puts a bare name into the one solution of the token', () => {
    expect(authzenAction('can_read', ['acme'])).toEqual({ ok: true, value: { urn: 'urn:action:acme:can_read', solution: 'acme' } });
  });

  it('takes a whole action URN as it is, whatever the token covers', () => {
    for (const solutions of [['acme'], ['acme', 'globex'], ['*'], ['globex']]) {
      expect(authzenAction('urn:action:globex:read', solutions)).toEqual({ ok: true, value: { urn: 'urn:action:globex:read', solution: 'globex' } });
    }
  });

  it('refuses a bare name when the token covers several solutions or all', () => {
    for (const solutions of [['acme', 'globex'], ['*'], []]) {
      const result = authzenAction('can_read', solutions);
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.errors).toEqual([{ path: 'action.name', message: expect.stringContaining('urn:action:<solution>:can_read') }]);
    }
  });

  it('refuses names that are neither a bare name nor an action URN, at the given path', () => {
    for (const name of ['can read', '', 'read:doc', 'urn:policy:acme:x', 'urn:action:ACME:x']) {
      const result = authzenAction(name, ['acme'], 'evaluations[2].action.name');
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.errors[0]?.path).toBe('evaluations[2].action.name');
    }
  });
});

describe('AuthZEN evaluation → Custos event', () => {
  const evaluation: CompleteEvaluation = {
    subject: { type: 'user', id: 'alice@example.com', properties: { department: 'Sales' } },
    resource: { type: 'account', id: '123' },
    action: { name: 'can_read', properties: { method: 'GET' } },
    context: { time: '1985-10-26T01:22-07:00' },
  };

  it('makes subject, resource, action and context complex parameters holding the objects as sent', () => {
    const mapped = toCustosEvent(evaluation, ['acme'], 1795424400000);
    expect(mapped).toEqual({
      ok: true,
      value: {
        action: { urn: 'urn:action:acme:can_read', solution: 'acme' },
        event: {
          actionId: { urn: 'urn:action:acme:can_read' },
          timestamp: 1795424400000,
          parameters: [
            { name: 'subject', value: { value: evaluation.subject, type: 'org.openid.authzen.Subject', isComplex: true } },
            { name: 'resource', value: { value: evaluation.resource, type: 'org.openid.authzen.Resource', isComplex: true } },
            { name: 'action', value: { value: evaluation.action, type: 'org.openid.authzen.Action', isComplex: true } },
            { name: 'context', value: { value: evaluation.context, type: 'org.openid.authzen.Context', isComplex: true } },
          ],
        },
      },
    });
  });

  it('gives an absent context as an empty object', () => {
    const mapped = toCustosEvent({ subject: alice, resource: doc('1'), action: { name: 'read' } }, ['acme'], 0);
    expect(mapped.ok && mapped.value.event.parameters.find((p) => p.name === 'context')?.value.value).toEqual({});
  });

  it('locates a bad action name and an overly deep value under the prefix', () => {
    const bad = toCustosEvent({ ...evaluation, action: { name: 'no way' } }, ['acme'], 0, 'evaluations[4].');
    expect(bad.ok ? [] : bad.errors.map((e) => e.path)).toEqual(['evaluations[4].action.name']);
    let deep: unknown = 'leaf';
    for (let i = 0; i < 70; i++) deep = { deeper: deep };
    const tooDeep = toCustosEvent({ ...evaluation, context: { deep } }, ['acme'], 0, 'evaluations[1].');
    expect(tooDeep.ok ? [] : tooDeep.errors.map((e) => e.path)).toEqual(['evaluations[1].context']);
  });
});

describe('AuthZEN evaluations with defaults', () => {
  it('is one evaluation of the top-level entities without evaluations or with an empty array', () => {
    for (const evaluations of [undefined, []]) {
      const result = evaluationsOf({ subject: alice, action: { name: 'read' }, resource: doc('1'), evaluations });
      expect(result).toEqual({ ok: true, value: { single: true, evaluations: [{ subject: alice, action: { name: 'read' }, resource: doc('1') }] } });
    }
  });

  it('fills every entry from the top-level defaults, an entry’s own entity replacing the default', () => {
    const context = { time: '2024-05-31T15:22-07:00' };
    const result = evaluationsOf({
      subject: alice,
      context,
      action: { name: 'can_read' },
      evaluations: [{ resource: doc('boxcarring.md') }, { action: { name: 'can_edit' }, resource: doc('resource-search.md'), context: { other: 1 } }],
    });
    expect(result).toEqual({
      ok: true,
      value: {
        single: false,
        evaluations: [
          { subject: alice, action: { name: 'can_read' }, resource: doc('boxcarring.md'), context },
          { subject: alice, action: { name: 'can_edit' }, resource: doc('resource-search.md'), context: { other: 1 } },
        ],
      },
    });
  });

  it('names every entity missing both in an entry and at the top level', () => {
    const result = evaluationsOf({ action: { name: 'read' }, evaluations: [{ subject: alice, resource: doc('1') }, { resource: doc('2') }, {}] });
    expect(result.ok ? [] : result.errors.map((e) => e.path)).toEqual(['evaluations[1].subject', 'evaluations[2].subject', 'evaluations[2].resource']);
    const single = evaluationsOf({ subject: alice });
    expect(single.ok ? [] : single.errors.map((e) => e.path)).toEqual(['action', 'resource']);
  });

  it('reads the options with their defaults', () => {
    expect(semanticOf(undefined)).toBe('execute_all');
    expect(semanticOf({ evaluations_semantic: 'deny_on_first_deny' })).toBe('deny_on_first_deny');
    expect(modifiersSupported(undefined)).toBe(true);
    expect(modifiersSupported({ custos_modifiers_supported: true })).toBe(true);
    expect(modifiersSupported({ custos_modifiers_supported: false })).toBe(false);
  });

  it('stops after the first deny, or the first permit, or never', () => {
    expect([true, false].map((d) => evaluationStops('execute_all', d))).toEqual([false, false]);
    expect([true, false].map((d) => evaluationStops('deny_on_first_deny', d))).toEqual([false, true]);
    expect([true, false].map((d) => evaluationStops('permit_on_first_permit', d))).toEqual([true, false]);
  });
});

describe('Custos decision → AuthZEN decision', () => {
  const modifier = { name: 'resource', expression: '$.properties.owner', engine: [{ method: 'delete', parameters: [] }] } as AuthorizationDecision['modifiers'][number];
  const decision = (eventAllowed: boolean, modifiers: AuthorizationDecision['modifiers'] = [], delay = 0): AuthorizationDecision => ({
    id: { identifier: 'urn:decision:0193a5e2-7c4b-7d6e-9f10-2b3c4d5e6f70' },
    eventAllowed,
    modifiers,
    delay,
  });

  const decided = { revision: 7, decided: true };
  const id = 'urn:decision:0193a5e2-7c4b-7d6e-9f10-2b3c4d5e6f70';

  it('answers a decision without obligations with the bare boolean, as peers do', () => {
    expect(toAuthZenDecision(decision(true), decided)).toEqual({ decision: true });
    expect(toAuthZenDecision(decision(false), decided)).toEqual({ decision: false });
    // The modifiers of an inhibited decision are nothing to act on.
    expect(toAuthZenDecision({ ...decision(false), modifiers: [modifier] }, decided)).toEqual({ decision: false });
  });

  it('carries a context when the PEP must act: modifiers to apply, or a delay (also on a denial)', () => {
    expect(toAuthZenDecision(decision(true, [modifier]), decided)).toEqual({ decision: true, context: { modifiers: [modifier], delay_ms: 0 } });
    expect(toAuthZenDecision(decision(true, [], 250), decided)).toEqual({ decision: true, context: { modifiers: [], delay_ms: 250 } });
    expect(toAuthZenDecision(decision(false, [], 1500), decided)).toEqual({ decision: false, context: { modifiers: [], delay_ms: 1500 } });
  });

  it('carries the whole context, with decision id, revision and reason, when the request asks for it', () => {
    expect(toAuthZenDecision(decision(true), { ...decided, fullContext: true })).toEqual({
      decision: true,
      context: { decision_id: id, policy_revision: 7, modifiers: [], delay_ms: 0 },
    });
    expect(toAuthZenDecision(decision(true), { revision: 2, decided: false, fullContext: true })).toEqual({
      decision: false,
      context: { decision_id: id, policy_revision: 2, modifiers: [], delay_ms: 0, reason: 'no_mechanism' },
    });
  });

  it('denies an action no mechanism reacted to unless the default is allow, whatever the engine default gave', () => {
    expect(toAuthZenDecision(decision(true), { revision: 1, decided: false })).toEqual({ decision: false });
    expect(toAuthZenDecision(decision(true), { revision: 1, decided: false, defaultDecision: 'deny' })).toEqual({ decision: false });
    expect(toAuthZenDecision(decision(false), { revision: 1, decided: false, defaultDecision: 'allow' })).toEqual({ decision: true });
  });

  it('fails closed when the caller cannot apply the modifiers of an allowing decision', () => {
    expect(toAuthZenDecision(decision(true, [modifier]), { ...decided, canApplyModifiers: false })).toEqual({ decision: false });
    expect(toAuthZenDecision(decision(true, [modifier]), { ...decided, canApplyModifiers: false, fullContext: true })).toMatchObject({
      decision: false,
      context: { modifiers: [modifier], reason: 'modifiers_not_supported' },
    });
    // Nothing to apply: the caller's limitation does not matter.
    expect(toAuthZenDecision(decision(true), { ...decided, canApplyModifiers: false })).toEqual({ decision: true });
  });

  it('reports, and refuses, modifiers aimed at a parameter an evaluation does not have', () => {
    const stray = { ...modifier, name: 'document' };
    expect(toAuthZenDecision(decision(true, [modifier, stray, stray]), decided)).toEqual({
      decision: false,
      context: { modifiers: [modifier, stray, stray], delay_ms: 0, reason: 'modifier_target_missing', unmatched_parameters: ['document'] },
    });
  });
});

describe('AuthZEN metadata', () => {
  it('names the pdp and its two evaluation endpoints, and no search endpoints', () => {
    expect(authzenMetadata('https://pdp.example.com/')).toEqual({
      policy_decision_point: 'https://pdp.example.com',
      access_evaluation_endpoint: 'https://pdp.example.com/access/v1/evaluation',
      access_evaluations_endpoint: 'https://pdp.example.com/access/v1/evaluations',
    });
    expect(AUTHZEN_PATHS.metadata).toBe('/.well-known/authzen-configuration');
  });
});
