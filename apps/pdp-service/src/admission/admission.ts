import { ERROR_CODES } from '@custos/contracts';
import { HttpProblem, type Principal } from '@custos/service-kit';
import { FairTurns, WorkSlices } from './fair-turns';
import { SolutionGate } from './solution-gate';

/** Per-solution limits of the decision routes on one replica (README, "Configuration"; docs/security.md). */
export interface AdmissionLimits {
  /** Requests of one solution in flight at once (`PDP_SOLUTION_MAX_CONCURRENCY`); 0 = no limit. */
  maxConcurrency: number;
  /** Decisions per second one solution may start (`PDP_SOLUTION_RATE`); 0 = no limit. */
  ratePerSecond: number;
  /** Decisions a solution that was idle may start at once (`PDP_SOLUTION_BURST`). */
  burst: number;
  /** How long one slice of a batch's work runs before the event loop is given back (`PDP_WORK_SLICE_MS`). */
  sliceMs: number;
}

/** A KiB of request body is charged like one decision. */
export const CHARS_PER_DECISION = 1024;

/** No limit at all: what createApp uses when it is given none (unit tests). */
export const NO_LIMITS: AdmissionLimits = { maxConcurrency: 0, ratePerSecond: 0, burst: 0, sliceMs: 2 };

/** An admitted request: the gates it holds a place in, and the key of its turns. */
export interface Admitted {
  readonly gates: readonly SolutionGate[];
  readonly key: string;
}

/**
 * Admission control of the decision routes, per solution (tenant): taken right after the token is verified and
 * before the body is read, so a refused request costs its token check and nothing more. The solutions are the
 * token's: a token of several solutions holds a place in each (it can exceed none of their limits), one of every
 * solution (`*`) is counted as the solution `*`.
 */
export class Admission {
  readonly turns = new FairTurns();
  private readonly gates = new Map<string, SolutionGate>();
  /** Verified principals are remembered by the token verifier, so their gates are looked up once per token. */
  private readonly admittedOf = new WeakMap<Principal, Admitted>();

  constructor(readonly limits: AdmissionLimits) {}

  /** Takes a place for the request, or throws 429 with Retry-After. */
  admit(principal: Principal): Admitted {
    let admitted = this.admittedOf.get(principal);
    if (admitted === undefined) {
      admitted = this.admittedFor(principal);
      this.admittedOf.set(principal, admitted);
    }
    const { maxConcurrency, ratePerSecond } = this.limits;
    const now = ratePerSecond === 0 ? 0 : performance.now();
    for (const gate of admitted.gates) {
      if (maxConcurrency !== 0 && gate.inFlight >= maxConcurrency) {
        gate.refusedConcurrency += 1;
        throw tooMany(`solution \`${gate.solution}\` has ${maxConcurrency} requests in flight on this replica, its limit; retry shortly`, 1);
      }
      const wait = gate.waitSeconds(now);
      if (wait > 0) {
        gate.refusedRate += 1;
        throw tooMany(`solution \`${gate.solution}\` is past its rate of ${ratePerSecond} decisions per second on this replica`, Math.ceil(wait));
      }
    }
    for (const gate of admitted.gates) {
      gate.inFlight += 1;
      gate.admitted += 1;
      gate.charge(1);
    }
    return admitted;
  }

  /**
   * A body once read costs its parse whether or not anything is decided: a KiB of it is charged like a decision
   * (a body of a few hundred bytes, nearly every event, adds nothing to the one charged at admission). Returns what
   * the request has been charged so far.
   */
  chargeBody(admitted: Admitted, bodyChars: number): number {
    const work = Math.ceil(bodyChars / CHARS_PER_DECISION);
    if (work > 1) for (const gate of admitted.gates) gate.charge(work - 1);
    return Math.max(1, work);
  }

  /** A batch turned out to hold `items` decisions; `charged` of them were paid already (admission and body). */
  chargeItems(admitted: Admitted, items: number, charged: number): void {
    if (items > charged) for (const gate of admitted.gates) gate.charge(items - charged);
  }

  release(admitted: Admitted): void {
    for (const gate of admitted.gates) gate.inFlight -= 1;
  }

  /** The slices of one request's long work, turned round robin with every other solution's. */
  slices(admitted: Admitted): WorkSlices {
    return new WorkSlices(this.turns, admitted.key, this.limits.sliceMs);
  }

  /** Every solution seen so far, for the metrics. */
  solutions(): IterableIterator<SolutionGate> {
    return this.gates.values();
  }

  private admittedFor(principal: Principal): Admitted {
    const solutions = principal.allSolutions ? ['*'] : [...principal.solutions].sort();
    const gates = solutions.map((solution) => {
      let gate = this.gates.get(solution);
      if (gate === undefined) {
        gate = new SolutionGate(solution, this.limits.ratePerSecond, this.limits.burst, performance.now());
        this.gates.set(solution, gate);
      }
      return gate;
    });
    return { gates, key: solutions.join(',') };
  }
}

const tooMany = (detail: string, retryAfterSeconds: number) =>
  new HttpProblem(429, ERROR_CODES.tooManyRequests, detail, undefined, { 'Retry-After': String(retryAfterSeconds) });
