import { HttpProblem, Principal, Registry } from '@custos/service-kit';
import { Admission, FairTurns, NO_LIMITS, registerAdmissionMetrics, type AdmissionLimits } from '../src/admission';
import { readAdmissionLimits } from '../src/config';

const principal = (...solutions: string[]) => new Principal('client', new Set(['event:decide']), new Set(solutions));
const limits = (overrides: Partial<AdmissionLimits>): AdmissionLimits => ({ ...NO_LIMITS, ...overrides });

/** The 429 a call throws, or undefined when it did not throw one. */
function refusal(call: () => unknown): HttpProblem | undefined {
  try {
    call();
    return undefined;
  } catch (error) {
    if (error instanceof HttpProblem && error.status === 429) return error;
    throw error;
  }
}

describe('admission per solution', () => {
  it('refuses past the concurrency of a solution with 429 and Retry-After, while another solution is still admitted', () => {
    const admission = new Admission(limits({ maxConcurrency: 2 }));
    const acme = principal('acme');
    const first = admission.admit(acme);
    admission.admit(principal('acme'));
    const refused = refusal(() => admission.admit(acme));
    expect(refused?.code).toBe('too_many_requests');
    expect(refused?.headers).toEqual({ 'Retry-After': '1' });
    expect(refused?.detail).toContain('`acme`');
    expect(refusal(() => admission.admit(principal('beta')))).toBeUndefined();
    admission.release(first);
    expect(refusal(() => admission.admit(acme))).toBeUndefined();
  });

  it('charges decisions to a rate: a batch leaves a debt that the Retry-After counts', () => {
    const admission = new Admission(limits({ ratePerSecond: 1, burst: 1 }));
    const acme = principal('acme');
    const admitted = admission.admit(acme);
    admission.release(admitted);
    expect(refusal(() => admission.admit(acme))?.headers).toEqual({ 'Retry-After': '1' });
    admission.chargeItems(admitted, 100, 1);
    // 99 more decisions than the bucket held, at 1 a second.
    expect(refusal(() => admission.admit(acme))?.headers).toEqual({ 'Retry-After': '100' });
    expect(refusal(() => admission.admit(principal('beta')))).toBeUndefined();
  });

  it('charges a large body like the decisions parsing it costs: a KiB of body counts one', () => {
    const admission = new Admission(limits({ ratePerSecond: 1, burst: 1 }));
    const acme = principal('acme');
    const small = admission.admit(acme);
    // A body of a few hundred bytes adds nothing to its one decision.
    expect(admission.chargeBody(small, 700)).toBe(1);
    admission.release(small);
    const beta = principal('beta');
    const large = admission.admit(beta);
    expect(admission.chargeBody(large, 10 * 1024)).toBe(10);
    // Ten items are paid for by the body already.
    admission.chargeItems(large, 10, 10);
    expect(refusal(() => admission.admit(beta))?.headers).toEqual({ 'Retry-After': '10' });
    expect(refusal(() => admission.admit(acme))?.headers).toEqual({ 'Retry-After': '1' });
  });

  it('counts a token of several solutions in each, and a token of every solution as `*`', () => {
    const admission = new Admission(limits({ maxConcurrency: 1 }));
    const both = admission.admit(principal('beta', 'acme'));
    expect(both.gates.map((gate) => gate.solution)).toEqual(['acme', 'beta']);
    expect(refusal(() => admission.admit(principal('acme')))).toBeDefined();
    expect(refusal(() => admission.admit(principal('beta')))).toBeDefined();
    expect(admission.admit(principal('*')).gates.map((gate) => gate.solution)).toEqual(['*']);
    admission.release(both);
    expect(refusal(() => admission.admit(principal('acme')))).toBeUndefined();
  });

  it('admits everything without limits', () => {
    const admission = new Admission(NO_LIMITS);
    const acme = principal('acme');
    for (let i = 0; i < 10_000; i++) admission.admit(acme);
    expect([...admission.solutions()].map((gate) => gate.inFlight)).toEqual([10_000]);
  });

  it('shows admitted, refused and in-flight requests per solution in the metrics', async () => {
    const registry = new Registry();
    const admission = new Admission(limits({ maxConcurrency: 1 }));
    registerAdmissionMetrics(registry, admission);
    admission.admit(principal('acme'));
    refusal(() => admission.admit(principal('acme')));
    const done = admission.admit(principal('beta'));
    admission.release(done);
    const text = await registry.metrics();
    expect(text).toContain('decision_requests_admitted_total{solution="acme"} 1');
    expect(text).toContain('decision_requests_admitted_total{solution="beta"} 1');
    expect(text).toContain('decision_requests_refused_total{solution="acme",reason="concurrency"} 1');
    expect(text).toContain('decision_requests_refused_total{solution="acme",reason="rate"} 0');
    expect(text).toContain('decision_requests_in_flight{solution="acme"} 1');
    expect(text).toContain('decision_requests_in_flight{solution="beta"} 0');
  });
});

describe('fair turns', () => {
  it('gives every waiting solution one turn per pass, however many requests it has waiting', async () => {
    const turns = new FairTurns();
    const order: string[] = [];
    const waits = [
      turns.turn('flood').then(() => order.push('flood 1')),
      turns.turn('flood').then(() => order.push('flood 2')),
      turns.turn('flood').then(() => order.push('flood 3')),
      turns.turn('quiet').then(() => order.push('quiet 1')),
    ];
    expect(turns.pending).toBe(4);
    await Promise.all(waits);
    expect(order).toEqual(['flood 1', 'quiet 1', 'flood 2', 'flood 3']);
    expect(turns.pending).toBe(0);
  });

  it('lets I/O and timers run between passes', async () => {
    const turns = new FairTurns();
    const order: string[] = [];
    const flood = (async () => {
      for (let i = 0; i < 3; i++) {
        await turns.turn('flood');
        order.push(`slice ${i}`);
      }
    })();
    // setImmediate callbacks queued now run after the first pass, before the second.
    setImmediate(() => order.push('other work'));
    await flood;
    expect(order.indexOf('other work')).toBeGreaterThan(order.indexOf('slice 0'));
    expect(order.indexOf('other work')).toBeLessThan(order.indexOf('slice 2'));
  });
});

describe('configuration', () => {
  it('has defaults, takes 0 as no limit and makes the burst one second of the rate', () => {
    expect(readAdmissionLimits({})).toEqual({ maxConcurrency: 64, ratePerSecond: 10_000, burst: 10_000, sliceMs: 2 });
    expect(readAdmissionLimits({ PDP_SOLUTION_RATE: '0', PDP_SOLUTION_MAX_CONCURRENCY: '0' })).toMatchObject({ maxConcurrency: 0, ratePerSecond: 0, burst: 1 });
    expect(readAdmissionLimits({ PDP_SOLUTION_RATE: '500', PDP_SOLUTION_BURST: '2000', PDP_WORK_SLICE_MS: '5' })).toMatchObject({ ratePerSecond: 500, burst: 2000, sliceMs: 5 });
    expect(() => readAdmissionLimits({ PDP_SOLUTION_MAX_CONCURRENCY: '-1' })).toThrow(/PDP_SOLUTION_MAX_CONCURRENCY/);
  });
});
