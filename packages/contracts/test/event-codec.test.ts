import {
  actionOf,
  duplicateParameters,
  javaValue,
  MAX_VALUE_DEPTH,
  nestsDeeperThan,
  overlyDeepParameters,
  parameterValue,
  toAuthorizationDecision,
  toEngineEvent,
  toModifier,
  type CodecEngineDecision,
} from '@custos/contracts';

describe('event conversion', () => {
  it('makes the action URN from either form of actionId', () => {
    expect(actionOf({ scope: 'acme', action: 'show-employee' })).toEqual({ urn: 'urn:action:acme:show-employee', solution: 'acme' });
    expect(actionOf({ urn: 'urn:action:acme.eu:Show_1' })).toEqual({ urn: 'urn:action:acme.eu:Show_1', solution: 'acme.eu' });
    expect(actionOf({ urn: 'urn:policy:acme:x' })).toBeUndefined();
  });

  it('decodes parameter values: complex JSON text is parsed, anything else is kept', () => {
    expect(parameterValue({ value: '{"id":"u1","tags":[1,2]}', type: 'com.acme.User', isComplex: true })).toEqual({ id: 'u1', tags: [1, 2] });
    expect(parameterValue({ value: '[1,"a"]', type: 'java.util.List', isComplex: true })).toEqual([1, 'a']);
    expect(parameterValue({ value: '{not json', type: 'com.acme.User', isComplex: true })).toBe('{not json');
    expect(parameterValue({ value: '{"id":1}', type: 'java.lang.String', isComplex: false })).toBe('{"id":1}');
    expect(parameterValue({ value: { id: 'u1' }, type: 'com.acme.User', isComplex: true })).toEqual({ id: 'u1' });
    expect(parameterValue({ value: 1200, type: 'java.lang.Integer', isComplex: false })).toBe(1200);
    expect(parameterValue({ value: null, type: 'java.lang.Object', isComplex: false })).toBeNull();
  });

  it('builds the engine event with a map of parameters', () => {
    const event = toEngineEvent(
      {
        actionId: { scope: 'acme', action: 'show' },
        timestamp: 1763798400000,
        parameters: [
          { name: 'user', value: { value: '{"name":{"firstName":"Ann"}}', type: 'com.acme.User', isComplex: true } },
          { name: 'amount', value: { value: 1200, type: 'java.lang.Integer', isComplex: false } },
        ],
      },
      'urn:action:acme:show',
    );
    expect(event.action).toBe('urn:action:acme:show');
    expect(event.timestamp).toBe(1763798400000);
    expect([...event.parameters]).toEqual([
      ['user', { name: { firstName: 'Ann' } }],
      ['amount', 1200],
    ]);
    expect(toEngineEvent({ actionId: { urn: 'urn:action:a:b' }, timestamp: 0 } as never, 'urn:action:a:b').parameters.size).toBe(0);
  });

  it('finds repeated parameter names with their paths', () => {
    const value = { value: 1, type: 'java.lang.Integer', isComplex: false };
    expect(duplicateParameters(undefined)).toEqual([]);
    expect(duplicateParameters([{ name: 'a', value }, { name: 'b', value }])).toEqual([]);
    expect(duplicateParameters([{ name: 'a', value }, { name: 'b', value }, { name: 'a', value }, { name: 'a', value }])).toEqual([
      { path: 'parameters[2].name', message: 'repeats the name of parameters[0]' },
      { path: 'parameters[3].name', message: 'repeats the name of parameters[0]' },
    ]);
  });
});

describe('nesting depth of parameter values', () => {
  const nested = (depth: number, make: (inner: unknown) => unknown = (inner) => [inner]) => {
    let value: unknown = 1;
    for (let level = 0; level < depth; level += 1) value = make(value);
    return value;
  };

  it('counts arrays and objects, not scalars', () => {
    expect(nestsDeeperThan('text', 0)).toBe(false);
    expect(nestsDeeperThan(null, 0)).toBe(false);
    expect(nestsDeeperThan([], 0)).toBe(true);
    expect(nestsDeeperThan(nested(3), 3)).toBe(false);
    expect(nestsDeeperThan(nested(4), 3)).toBe(true);
    expect(nestsDeeperThan(nested(4, (inner) => ({ a: inner })), 3)).toBe(true);
    expect(nestsDeeperThan({ a: [1, { b: 2 }], c: 'x' }, 3)).toBe(false);
    expect(nestsDeeperThan({ a: [1, { b: [] }], c: 'x' }, 3)).toBe(true);
  });

  it('handles 100,000 levels without recursion', () => {
    const deep = JSON.parse('['.repeat(100_000) + ']'.repeat(100_000)) as unknown;
    expect(nestsDeeperThan(deep, MAX_VALUE_DEPTH)).toBe(true);
  });

  it('locates each parameter that nests too deeply, after complex JSON text is decoded', () => {
    const event = toEngineEvent(
      {
        actionId: { scope: 'acme', action: 'x' },
        timestamp: 0,
        parameters: [
          { name: 'ok', value: { value: nested(MAX_VALUE_DEPTH), type: 'x', isComplex: true } },
          { name: 'deep', value: { value: nested(MAX_VALUE_DEPTH + 1), type: 'x', isComplex: true } },
          { name: 'text', value: { value: JSON.stringify(nested(500)), type: 'x', isComplex: true } },
          { name: 'plain', value: { value: JSON.stringify(nested(500)), type: 'x', isComplex: false } },
        ],
      },
      'urn:action:acme:x',
    );
    expect(overlyDeepParameters(event.parameters)).toEqual([
      { path: 'parameters[1].value.value', message: `is nested deeper than ${MAX_VALUE_DEPTH} levels` },
      { path: 'parameters[2].value.value', message: `is nested deeper than ${MAX_VALUE_DEPTH} levels` },
    ]);
  });
});

describe('Java type mapping', () => {
  it.each([
    ['a string', 'x', 'java.lang.String', false],
    ['a number', 1.5, 'java.lang.Double', false],
    ['an integral number', 100, 'java.lang.Double', false],
    ['true', true, 'java.lang.Boolean', false],
    ['false', false, 'java.lang.Boolean', false],
    ['an object', { mode: 'half' }, 'java.lang.Object', true],
    ['a list', [1, 2], 'java.util.ArrayList', true],
    ['null', null, 'java.lang.Object', false],
  ])('types %s', (_what, value, type, isComplex) => {
    expect(javaValue(value)).toEqual({ value, type, isComplex });
  });

  it('sends an absent value as null', () => {
    expect(javaValue(undefined)).toEqual({ value: null, type: 'java.lang.Object', isComplex: false });
  });

  it('turns engine modifiers into wire modifiers with one engine each', () => {
    // The engine's modifier carries more than the wire needs (policy id, reason); those stay out.
    const engineModifier = {
      policyId: 'urn:policy:acme:p',
      eventParameter: 'user',
      expression: '$.name.firstName',
      method: 'append',
      parameters: [
        { name: 'suffix', value: ' (masked)' },
        { name: 'steps', value: [1, 2] },
      ],
      reason: 'privacy',
    };
    expect(toModifier(engineModifier)).toEqual({
      name: 'user',
      expression: '$.name.firstName',
      engine: [
        {
          method: 'append',
          parameters: [
            { name: 'suffix', value: { value: ' (masked)', type: 'java.lang.String', isComplex: false } },
            { name: 'steps', value: { value: [1, 2], type: 'java.util.ArrayList', isComplex: true } },
          ],
        },
      ],
    });
  });

  it('answers an AuthorizationDecision; an inhibited one has no modifiers', () => {
    const modifier = { policyId: 'p', eventParameter: 'x', expression: '$', method: 'delete', parameters: [], reason: null };
    const base: CodecEngineDecision = {
      allowed: true,
      modifiers: [modifier],
      delayMs: 250,
    };
    expect(toAuthorizationDecision('urn:decision:1', base)).toEqual({
      id: { identifier: 'urn:decision:1' },
      eventAllowed: true,
      modifiers: [{ name: 'x', expression: '$', engine: [{ method: 'delete', parameters: [] }] }],
      delay: 250,
    });
    expect(toAuthorizationDecision('urn:decision:2', { ...base, allowed: false })).toMatchObject({ eventAllowed: false, modifiers: [], delay: 250 });
  });
});
