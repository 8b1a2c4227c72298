import type { BranchTaken, EngineModifier, PlannedExecution } from '../api';

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
}
