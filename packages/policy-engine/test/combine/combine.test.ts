import fc from 'fast-check';
import type { EngineModifier } from '../../src';
import { combine, type Contribution } from '../../src/combine/combine';

function modifier(policyId: string, method: string): EngineModifier {
  return { policyId, eventParameter: 'p', expression: '$', method, parameters: [], reason: null };
}

function contribution(
  policyId: string,
  mechanism: number,
  verdict: Contribution['verdict'],
  delayMs = 0,
  methods: string[] = [],
): Contribution {
  return { policyId, mechanism, verdict, delayMs, modifiers: methods.map((method) => modifier(policyId, method)) };
}

describe('combine (policy-language.md §7)', () => {
  it('1. applies the default decision when nothing decides', () => {
    expect(combine([], 'allow')).toEqual({ allowed: true, decided: false, modifiers: [], delayMs: 0 });
    expect(combine([], 'inhibit')).toEqual({ allowed: false, decided: false, modifiers: [], delayMs: 0 });
    expect(combine([contribution('urn:policy:a:x', 0, 'none', 500)], 'inhibit')).toEqual({
      allowed: false,
      decided: false,
      modifiers: [],
      delayMs: 0,
    });
  });

  it('2. inhibits when any mechanism inhibits, with no modifiers and the largest inhibiting delay', () => {
    const result = combine(
      [
        contribution('urn:policy:a:x', 0, 'allow', 9000, ['m1']),
        contribution('urn:policy:a:y', 0, 'inhibit', 200),
        contribution('urn:policy:a:z', 1, 'inhibit', 700),
      ],
      'allow',
    );
    expect(result).toEqual({ allowed: false, decided: true, modifiers: [], delayMs: 700 });
  });

  it('3. allows with the modifiers of all allowing branches by policy id, mechanism, modify order, and the largest allowing delay', () => {
    const result = combine(
      [
        contribution('urn:policy:a:b', 1, 'allow', 100, ['b1-first', 'b1-second']),
        contribution('urn:policy:a:a', 0, 'allow', 300, ['a0']),
        contribution('urn:policy:a:b', 0, 'allow', 0, ['b0']),
        contribution('urn:policy:a:c', 0, 'none', 5000),
      ],
      'inhibit',
    );
    expect(result.allowed).toBe(true);
    expect(result.decided).toBe(true);
    expect(result.delayMs).toBe(300);
    expect(result.modifiers.map((item) => item.method)).toEqual(['a0', 'b0', 'b1-first', 'b1-second']);
  });

  it('orders policy ids by code unit, not by locale', () => {
    const result = combine(
      [contribution('urn:policy:a:b', 0, 'allow', 0, ['lower']), contribution('urn:policy:a:B', 0, 'allow', 0, ['upper'])],
      'allow',
    );
    expect(result.modifiers.map((item) => item.method)).toEqual(['upper', 'lower']);
  });

  it('4. fails closed: a failed mechanism inhibits even when everything else allows', () => {
    const result = combine([contribution('urn:policy:a:x', 0, 'allow', 50, ['m']), contribution('urn:policy:a:y', 0, 'error')], 'allow');
    expect(result).toEqual({ allowed: false, decided: true, modifiers: [], delayMs: 0 });
  });

  it('does not depend on the order of its input', () => {
    const arbitraryContribution = fc
      .record({
        policy: fc.constantFrom('urn:policy:a:p', 'urn:policy:a:q', 'urn:policy:a:r'),
        mechanism: fc.nat({ max: 3 }),
        verdict: fc.constantFrom('allow', 'inhibit', 'none', 'error') as fc.Arbitrary<Contribution['verdict']>,
        delayMs: fc.nat({ max: 10_000 }),
        methods: fc.array(fc.string({ maxLength: 3 }), { maxLength: 3 }),
      })
      .map(({ policy, mechanism, verdict, delayMs, methods }) => contribution(policy, mechanism, verdict, delayMs, methods));
    // Each (policy, mechanism) pair occurs once in a real decision.
    const contributions = fc.uniqueArray(arbitraryContribution, {
      selector: (item) => `${item.policyId}#${item.mechanism}`,
      maxLength: 8,
    });
    fc.assert(
      fc.property(contributions, fc.constantFrom('allow', 'inhibit') as fc.Arbitrary<'allow' | 'inhibit'>, fc.nat(), (items, fallback, seed) => {
        const shuffled = [...items].sort((left, right) => ((left.delayMs * 31 + seed) % 7) - ((right.delayMs * 31 + seed) % 7));
        expect(combine(shuffled, fallback)).toEqual(combine(items, fallback));
      }),
    );
  });

  it('agrees with the rules stated plainly, for any input', () => {
    const arbitraryContribution = fc.record({
      policyId: fc.constantFrom('urn:policy:a:p', 'urn:policy:a:q'),
      mechanism: fc.nat({ max: 2 }),
      verdict: fc.constantFrom('allow', 'inhibit', 'none', 'error') as fc.Arbitrary<Contribution['verdict']>,
      delayMs: fc.nat({ max: 1000 }),
      modifiers: fc.constant([] as EngineModifier[]),
    });
    fc.assert(
      fc.property(fc.array(arbitraryContribution, { maxLength: 6 }), (items) => {
        const result = combine(items, 'allow');
        const deciding = items.filter((item) => item.verdict !== 'none');
        const inhibiting = deciding.filter((item) => item.verdict !== 'allow');
        expect(result.decided).toBe(deciding.length > 0);
        expect(result.allowed).toBe(inhibiting.length === 0);
        const relevant = inhibiting.length > 0 ? inhibiting : deciding;
        expect(result.delayMs).toBe(Math.max(0, ...relevant.map((item) => item.delayMs)));
      }),
    );
  });
});
