import type { BranchTaken, EngineModifier, PlannedExecution } from '../api';
import type { Trace } from '../functions/evaluation';

/** What one mechanism contributed to a decision. */
export interface MechanismOutcome {
  readonly policyId: string;
  readonly mechanism: number;
  readonly event: string;
  /** `error` counts as inhibit when decisions are combined (fail closed). */
  readonly verdict: 'allow' | 'inhibit' | 'none' | 'error';
  readonly delayMs: number;
  readonly modifiers: EngineModifier[];
  readonly executions: PlannedExecution[];
  readonly reason: string | null;
  readonly error: string | null;
  readonly branch: BranchTaken;
  /** Only collected for explanations. */
  readonly conditions: Array<{ branch: number; value: boolean | null }> | null;
  /** What port-using elements did; only collected for explanations. */
  readonly trace: Trace | null;
}

export const NO_BRANCH: BranchTaken = Object.freeze({ kind: 'none' });
export const ELSE_BRANCH: BranchTaken = Object.freeze({ kind: 'else' });

/** Every outcome built by one literal, so all share one object shape (object spread here cost microseconds). */
export function outcome(
  mechanism: { readonly policyId: string; readonly index: number; readonly event: string },
  branch: BranchTaken,
  conditions: MechanismOutcome['conditions'],
  verdict: MechanismOutcome['verdict'],
  delayMs: number,
  modifiers: EngineModifier[],
  executions: PlannedExecution[],
  reason: string | null,
  error: string | null,
  trace: Trace | null,
): MechanismOutcome {
  return {
    policyId: mechanism.policyId,
    mechanism: mechanism.index,
    event: mechanism.event,
    verdict,
    delayMs,
    modifiers,
    executions,
    reason,
    error,
    branch,
    conditions,
    trace,
  };
}
