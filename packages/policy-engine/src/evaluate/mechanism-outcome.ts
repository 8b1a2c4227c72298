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

/** The mechanism an outcome belongs to. */
export interface OutcomeOwner {
  readonly policyId: string;
  readonly index: number;
  readonly event: string;
}

/** Everything of an outcome but its owner, by name. */
export type OutcomeFields = Omit<MechanismOutcome, 'policyId' | 'mechanism' | 'event'>;

/** Every outcome built by one literal, so all share one object shape (object spread here cost microseconds). */
export function outcome(mechanism: OutcomeOwner, fields: OutcomeFields): MechanismOutcome {
  return {
    policyId: mechanism.policyId,
    mechanism: mechanism.index,
    event: mechanism.event,
    verdict: fields.verdict,
    delayMs: fields.delayMs,
    modifiers: fields.modifiers,
    executions: fields.executions,
    reason: fields.reason,
    error: fields.error,
    branch: fields.branch,
    conditions: fields.conditions,
    trace: fields.trace,
  };
}

/** What a walk of a mechanism ended with, before it becomes an outcome. */
export interface WalkResult {
  readonly branch: BranchTaken;
  readonly conditions: MechanismOutcome['conditions'];
  readonly chosen: { readonly verdict: 'allow' | 'inhibit' | 'none'; readonly delayMs: number; readonly reason: string | null } | null;
  readonly failure: { readonly message: string } | null;
  readonly modifiers: EngineModifier[];
  /** The chosen branch's executes. */
  readonly executions: PlannedExecution[];
  /** The executes directly under the mechanism, planned whatever the branch. */
  readonly unconditional: PlannedExecution[];
}

/**
 * The outcome once a walk is done: a failure drops the branch's modifiers and executes but keeps the unconditional
 * executes that could be planned (§3, §7.4).
 */
export function settleOutcome(mechanism: OutcomeOwner, walk: WalkResult, trace: Trace | null): MechanismOutcome {
  const { failure, unconditional } = walk;
  const chosen = failure === null ? walk.chosen : null;
  let executions = unconditional;
  if (failure === null && walk.executions.length > 0) {
    executions = unconditional.length === 0 ? walk.executions : walk.executions.concat(unconditional);
  }
  return outcome(mechanism, {
    verdict: failure === null ? (chosen?.verdict ?? 'none') : 'error',
    delayMs: chosen?.delayMs ?? 0,
    modifiers: failure === null ? walk.modifiers : [],
    executions,
    reason: chosen?.reason ?? null,
    error: failure === null ? null : failure.message,
    branch: walk.branch,
    conditions: walk.conditions,
    trace,
  });
}
