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

/**
 * The outcome once a walk is done, shared by the synchronous and the asynchronous walk: a failure drops the
 * branch's modifiers and executes but keeps the unconditional executes that could be planned (§3, §7.4).
 */
export function settleOutcome(
  mechanism: { readonly policyId: string; readonly index: number; readonly event: string },
  walk: {
    branch: BranchTaken;
    conditions: MechanismOutcome['conditions'];
    chosen: { readonly verdict: 'allow' | 'inhibit' | 'none'; readonly delayMs: number; readonly reason: string | null } | null;
    failure: { readonly message: string } | null;
    modifiers: EngineModifier[];
    executions: PlannedExecution[];
    unconditional: PlannedExecution[];
  },
  trace: Trace | null,
): MechanismOutcome {
  const { branch, conditions, chosen, failure, modifiers, executions, unconditional } = walk;
  if (failure !== null) return outcome(mechanism, branch, conditions, 'error', 0, [], unconditional, null, failure.message, trace);
  if (chosen === null) return outcome(mechanism, branch, conditions, 'none', 0, modifiers, executions, null, null, trace);
  return outcome(mechanism, branch, conditions, chosen.verdict, chosen.delayMs, modifiers, executions, chosen.reason, null, trace);
}
