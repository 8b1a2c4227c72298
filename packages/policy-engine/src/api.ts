/**
 * The public surface of the policy engine. Apps depend on these shapes only; everything
 * else in this package is internal to the pipeline xml → parse → ast → validate → compile →
 * functions → evaluate → combine.
 */

/** A load-time problem, located in the policy text when it can be. */
export interface Diagnostic {
  /** Stable machine-readable kind, e.g. `doctype_forbidden`, `unknown_element`, `solution_mismatch`. */
  code: string;
  /** Lower case, no final period, user values in backticks. */
  message: string;
  line?: number;
  column?: number;
}

/** A policy that passed every check and is ready to decide. Opaque apart from its metadata. */
export interface CompiledPolicy {
  readonly id: string;
  readonly solution: string;
  readonly name: string | null;
  readonly description: string | null;
  /** Action URNs of its mechanisms, in document order, without duplicates. */
  readonly actions: readonly string[];
}

export type LoadOutcome = { ok: true; policy: CompiledPolicy } | { ok: false; diagnostics: Diagnostic[] };

/** An event as the engine sees it: the action URN and decoded parameter values. */
export interface EngineEvent {
  action: string;
  /** Milliseconds since the Unix epoch. */
  timestamp: number;
  parameters: ReadonlyMap<string, unknown>;
}

export interface NamedValue {
  name: string;
  value: unknown;
}

export interface EngineModifier {
  policyId: string;
  /** The event parameter the enforcement point modifies. */
  eventParameter: string;
  /** The jsonPathQuery, `$` when absent. */
  expression: string;
  method: string;
  parameters: NamedValue[];
  reason: string | null;
}

/** An `execute` to be carried out after the decision (never changes the answer). */
export interface PlannedExecution {
  policyId: string;
  action: string;
  parameters: NamedValue[];
}

export interface MechanismError {
  policyId: string;
  /** 0-based position of the mechanism in its policy. */
  mechanism: number;
  message: string;
}

export interface DecideOptions {
  /** Decision when no mechanism decides (`DEFAULT_DECISION`). */
  defaultDecision: 'allow' | 'inhibit';
  /** IANA zone for date/time functions (`POLICY_TIMEZONE`). */
  timeZone: string;
  /** Collect an explanation (for /event/explain). */
  explain?: boolean;
}

export type BranchTaken = { kind: 'if' | 'elseif'; index: number } | { kind: 'else' } | { kind: 'none' };

export interface MechanismExplanation {
  policyId: string;
  mechanism: number;
  event: string;
  branch: BranchTaken;
  /** Value of each evaluated condition, in order of evaluation (if, elseif...). */
  conditions: Array<{ branch: number; value: boolean | null }>;
  outcome: 'allow' | 'inhibit' | 'none' | 'error';
  delayMs: number;
  modifiers: EngineModifier[];
  executions: PlannedExecution[];
  reason: string | null;
  error: string | null;
}

export interface EngineDecision {
  allowed: boolean;
  /** False when no mechanism decided and the default applied. */
  decided: boolean;
  modifiers: EngineModifier[];
  delayMs: number;
  executions: PlannedExecution[];
  /** Ids of policies with at least one mechanism for the event's action, sorted. */
  matchedPolicies: string[];
  errors: MechanismError[];
  explanation?: MechanismExplanation[];
}

/** The deployed set, indexed by action; immutable once built. */
export interface PolicySet {
  readonly size: number;
  has(policyId: string): boolean;
  get(policyId: string): CompiledPolicy | undefined;
  /** A new set with these policies added or replaced (by id). */
  with(policies: Iterable<CompiledPolicy>): PolicySet;
  /** A new set without these ids. */
  without(policyIds: Iterable<string>): PolicySet;
}
