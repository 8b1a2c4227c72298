import fc from 'fast-check';
import { toAuthorizationDecision, type AuthorizationDecision } from '@custos/contracts';
import type { EngineDecision, EngineModifier } from '@custos/policy-engine';
import { answerText } from '../src/routes/answer-text';

/**
 * POST /event writes its answer with answerText instead of JSON.stringify: the text must be JSON.stringify's, byte
 * for byte, for every answer contracts can make (any strings — quotes, backslashes, control characters, lone
 * surrogates, non-ASCII — any parameter value, any number).
 */
describe('the answer text of POST /event', () => {
  const text = fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.constantFrom('', '"', '\\', '\u0000', '\ud800', '$.name.firstName', ' (masked)'));
  const json = fc.jsonValue();
  const value = fc.oneof(text, fc.double(), fc.integer(), fc.boolean(), fc.constant(null), fc.constant(undefined), json);
  const modifier: fc.Arbitrary<EngineModifier> = fc.record({
    policyId: text,
    eventParameter: text,
    expression: text,
    method: text,
    parameters: fc.array(fc.record({ name: text, value }), { maxLength: 3 }),
    reason: fc.option(text),
  });
  const decision: fc.Arbitrary<EngineDecision> = fc.record({
    allowed: fc.boolean(),
    decided: fc.boolean(),
    modifiers: fc.array(modifier, { maxLength: 3 }),
    delayMs: fc.oneof(fc.nat(), fc.double()),
    executions: fc.constant([]),
    matchedPolicies: fc.constant([]),
    errors: fc.constant([]),
  });
  const uuid = fc.uuid().map((u) => `urn:decision:${u}`);

  it('is JSON.stringify of the answer contracts make, for any decision', () => {
    fc.assert(
      fc.property(uuid, decision, (id, engineDecision) => {
        const answer = toAuthorizationDecision(id, engineDecision);
        expect(answerText(answer)).toBe(JSON.stringify(answer));
      }),
      { numRuns: 2000 },
    );
  });

  it('is JSON.stringify of any answer of the wire type, and of answers missing a member or holding one of another type', () => {
    const anything = fc.oneof(text, fc.double(), fc.boolean(), fc.constant(null), fc.constant(undefined), json);
    const parameter = fc.record({ name: fc.oneof(text, anything), value: fc.oneof(fc.record({ value: anything, type: text, isComplex: fc.boolean() }), anything) });
    const wireModifier = fc.record({
      name: fc.oneof(text, anything),
      expression: text,
      engine: fc.array(fc.record({ method: fc.oneof(text, anything), parameters: fc.oneof(fc.array(parameter, { maxLength: 2 }), anything) }), { maxLength: 2 }),
    });
    const answer = fc.record(
      {
        id: fc.oneof(fc.record({ identifier: fc.oneof(text, anything) }), anything),
        eventAllowed: fc.oneof(fc.boolean(), anything),
        modifiers: fc.oneof(fc.array(fc.oneof(wireModifier, anything), { maxLength: 3 }), anything),
        delay: fc.oneof(fc.integer(), fc.double(), anything),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(answer, (value) => {
        expect(answerText(value as AuthorizationDecision)).toBe(JSON.stringify(value));
      }),
      { numRuns: 2000 },
    );
  });

  it('writes the README answer as the wire shows it', () => {
    const answer = toAuthorizationDecision('urn:decision:019ac5a0-0000-7000-8000-000000000000', {
      allowed: true,
      modifiers: [{ eventParameter: 'user', expression: '$.name.firstName', method: 'append', parameters: [{ name: 'suffix', value: ' (masked)' }] }],
      delayMs: 0,
    });
    expect(JSON.parse(answerText(answer))).toEqual({
      id: { identifier: 'urn:decision:019ac5a0-0000-7000-8000-000000000000' },
      eventAllowed: true,
      modifiers: [
        { name: 'user', expression: '$.name.firstName', engine: [{ method: 'append', parameters: [{ name: 'suffix', value: { value: ' (masked)', type: 'java.lang.String', isComplex: false } }] }] },
      ],
      delay: 0,
    });
  });
});
