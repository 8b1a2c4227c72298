import type { EvaluateAsync } from '../functions/evaluation';
import type { ParameterProgram } from '../functions/parameters';

export type { ParameterProgram } from '../functions/parameters';

/** The executable form of a policy: closures and precomputed constants, no syntax tree. */
export interface PolicyProgram {
  readonly policyId: string;
  /**
   * Every mechanism, in document order (`event` says its action). A list rather than a map by action: most policies
   * have one action, and a set is indexed by action anyway (policy-set/), so a map per policy was memory for nothing.
   */
  readonly mechanisms: readonly MechanismProgram[];
}

export interface MechanismProgram {
  readonly policyId: string;
  /** 0-based position in the policy. */
  readonly index: number;
  readonly event: string;
  /**
   * `sync`: every closure below is a plain `Evaluate` and never returns a promise. `async`: some closure may wait
   * for a port, so a decision of this mechanism may be a promise (`CompiledPolicy.usesPorts`).
   */
  readonly mode: 'sync' | 'async';
  /** The `if` followed by the `elseif`s, in document order. */
  readonly branches: readonly BranchProgram[];
  readonly otherwise: DecisionProgram | null;
  /** `execute` directly under the mechanism: planned whatever the branch. */
  readonly executions: readonly ExecutionProgram[];
}

export interface BranchProgram {
  readonly kind: 'if' | 'elseif';
  /** 0 for the `if`; the position among the `elseif`s for those. */
  readonly index: number;
  readonly condition: EvaluateAsync<boolean>;
  readonly decision: DecisionProgram;
}

export interface DecisionProgram {
  /** `modify` without allow/inhibit counts as allow; no verdict at all means the branch decides nothing. */
  readonly verdict: 'allow' | 'inhibit' | 'none';
  readonly reason: string | null;
  readonly delayMs: number;
  readonly modifiers: readonly ModifierProgram[];
  readonly executions: readonly ExecutionProgram[];
}

export interface ModifierProgram {
  readonly eventParameter: string;
  readonly expression: string;
  readonly method: string;
  readonly reason: string | null;
  readonly parameters: readonly ParameterProgram[];
}

export interface ExecutionProgram {
  readonly action: string;
  readonly parameters: readonly ParameterProgram[];
}
