import type { CompiledPolicy } from '../api';
import type { PolicyProgram } from './program';

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
