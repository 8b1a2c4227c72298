import type { CompiledPolicy } from '../api';
import type { MechanismProgram, PolicyProgram } from './program';

/**
 * Links each `CompiledPolicy` handed out by `loadPolicy` to its program. The public object stays plain metadata;
 * the program is reachable only from inside the engine, and a look-alike object made elsewhere is recognised.
 */
const PROGRAMS = new WeakMap<CompiledPolicy, PolicyProgram>();

export function registerProgram(policy: CompiledPolicy, program: PolicyProgram): void {
  PROGRAMS.set(policy, program);
}

export function programOf(policy: CompiledPolicy): PolicyProgram {
  const program = PROGRAMS.get(policy);
  if (program === undefined) {
    throw new TypeError(`policy \`${policy.id}\` was not produced by loadPolicy of this engine`);
  }
  return program;
}

/**
 * The explaining program of one policy: compiled on first use from `source` and then kept. `source` is null for a
 * policy compiled without one (the caller keeps no text, issue 26): it must be given one (`provideExplaining`)
 * before the policy is explained.
 */
interface Explaining {
  compiled: readonly MechanismProgram[] | null;
  source: (() => readonly MechanismProgram[]) | null;
}

/** Each mechanism → its policy's explaining program. */
const EXPLAINING = new WeakMap<MechanismProgram, Explaining>();

export function registerExplaining(mechanisms: readonly MechanismProgram[], source: (() => readonly MechanismProgram[]) | null): void {
  const explaining: Explaining = { compiled: null, source };
  for (const mechanism of mechanisms) EXPLAINING.set(mechanism, explaining);
}

/** Whether the mechanism can be explained now (its explaining program is compiled or has a source). */
export function canExplain(mechanism: MechanismProgram): boolean {
  const explaining = EXPLAINING.get(mechanism);
  return explaining === undefined || explaining.compiled !== null || explaining.source !== null;
}

/** Gives the mechanisms of a policy compiled without a source their explaining program, compiled now. */
export function provideExplaining(mechanisms: readonly MechanismProgram[], compiled: readonly MechanismProgram[]): void {
  for (const mechanism of mechanisms) {
    const explaining = EXPLAINING.get(mechanism);
    if (explaining !== undefined && explaining.compiled === null) {
      explaining.compiled = compiled;
      explaining.source = null;
    }
  }
}

/** The same mechanism compiled to record operand values; the mechanism itself when it has none. */
export function explainingMechanism(mechanism: MechanismProgram): MechanismProgram {
  const explaining = EXPLAINING.get(mechanism);
  if (explaining === undefined) return mechanism;
  if (explaining.compiled === null) {
    if (explaining.source === null) {
      throw new TypeError(`policy \`${mechanism.policyId}\` was compiled without its explaining source: provideExplanationSource first`);
    }
    explaining.compiled = explaining.source();
    explaining.source = null;
  }
  return explaining.compiled[mechanism.index] ?? mechanism;
}
