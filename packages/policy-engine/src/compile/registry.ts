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

/** Each mechanism → the mechanisms of its policy's explaining program, compiled on first use and then kept. */
const EXPLAINING = new WeakMap<MechanismProgram, () => readonly MechanismProgram[]>();

export function registerExplaining(mechanisms: readonly MechanismProgram[], compile: () => readonly MechanismProgram[]): void {
  let compiled: readonly MechanismProgram[] | null = null;
  const explaining = () => (compiled ??= compile());
  for (const mechanism of mechanisms) EXPLAINING.set(mechanism, explaining);
}

/** The same mechanism compiled to record operand values; the mechanism itself when it has none. */
export function explainingMechanism(mechanism: MechanismProgram): MechanismProgram {
  return EXPLAINING.get(mechanism)?.()[mechanism.index] ?? mechanism;
}
