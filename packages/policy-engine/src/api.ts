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

/** What a policy says of itself on its root element, the same from validation to the compiled policy. */
export interface PolicyIdentity {
  readonly id: string;
  /** The solution of the policy's URN. */
  readonly solution: string;
  readonly name: string | null;
  readonly description: string | null;
}

/** A policy that passed every check and is ready to decide. Opaque apart from its metadata. */
export interface CompiledPolicy extends PolicyIdentity {
  /** Action URNs of its mechanisms, in document order, without duplicates. */
  readonly actions: readonly string[];
  /**
   * Actions named by its `eventOccurrence`s (in `count`, `continuousOccurrence` and `start`/`end`), in document order,
   * without duplicates: the pdp records exactly the events of these actions (policy-language.md §6).
   */
  readonly historyActions: readonly string[];
  /** True when a decision of this policy may read or write the event history or `valueChanged` state. */
  readonly usesHistory: boolean;
  /** The longest span back from now its history elements can look at; Infinity for `always` and open starts. */
  readonly maxHistorySpanMs: number;
  /** The `parameter:*` filters of its `eventOccurrence`s, for stores that must prepare values at record time. */
  readonly historyFilters: readonly HistoryFilterSpec[];
  /** True when some mechanism needs a port (history, pip, execute in a condition): its decisions may be promises. */
  readonly usesPorts: boolean;
}

/** Which recorded parameter (and which path inside it) an `eventOccurrence` filters on. */
export interface HistoryFilterSpec {
  readonly action: string;
  readonly name: string;
  readonly path: string | null;
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
  /** Who chose `defaultDecision` (the pdp says `solution` or `pdp`): echoed as `defaultSource` by a decision it answered. */
  defaultSource?: string;
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
  /** PIP answers used, in order of use (only for mechanisms that asked). */
  pip?: PipExplanation[];
  /** Counts, windows and occurrence look-ups of the event history. */
  history?: HistoryExplanation[];
  valueChanged?: ValueChangedExplanation[];
  /** `execute` inside conditions; never called while explaining. */
  conditionExecutions?: ConditionExecutionExplanation[];
  /**
   * The operand values of every comparison, function and arithmetic element evaluated, in document order (outer
   * before inner); only in explanations.
   */
  values?: ValueExplanation[];
}

/** One evaluated comparison, function or arithmetic element with what it compared or computed. */
export interface ValueExplanation {
  /** The element as written: `equals`, `less`, `plus`, `size`, `regex`, `contains`, `eventHasParameter`, `concat`. */
  element: string;
  /** Which condition evaluated it: 0 the `if`, n the n-th `elseif`; null outside conditions (modify, execute). */
  condition: number | null;
  /** How many evaluated elements of this list enclose it (0: the outermost). */
  depth: number;
  operands: OperandExplanation[];
  /** The element's result; absent when it failed. */
  value?: unknown;
  /** Why it failed, when it did. */
  error?: string;
}

/** An operand: where the value came from and the value (cut short when long, see `truncated`). */
export interface OperandExplanation {
  /** `constant`, `event \`user\` at \`$.id\``, `pip \`urn:info:…\``, `variable \`x\``, `count of \`urn:action:…\``, an element name. */
  source: string;
  value?: unknown;
  error?: string;
  /** True when `value` is a shortened copy: long strings end in `…`, long lists and objects lose their tail. */
  truncated?: boolean;
}

export interface PipExplanation {
  method: string;
  parameters: NamedValue[];
  /** The value used: the answer, or the element's default. */
  value: unknown;
  usedDefault: boolean;
  /** Why the default was used, when it was. */
  reason?: string;
  /** As reported by the resolver; also true when an earlier element of the same request asked the same. */
  cached?: boolean;
}

/** A span or window as ms since the epoch; `from: null` is the beginning of time; `to` is exclusive. */
export interface ExplainedSpan {
  from: number | null;
  to: number;
}

export interface HistoryExplanation {
  element: 'count' | 'continuousOccurrence' | 'eventOccurrence';
  action: string;
  span?: ExplainedSpan;
  /** `count`: the number found. */
  count?: number;
  /** `continuousOccurrence`: each window with its count. */
  windows?: Array<ExplainedSpan & { count: number }>;
  /** `eventOccurrence` in `start`/`end`: FIRST/LAST and the time found (null: none, the bound is ignored). */
  mode?: 'first' | 'last';
  occurrence?: number | null;
}

export interface ValueChangedExplanation {
  id: string;
  changed: boolean;
  /** False while explaining: the state is compared, never updated. */
  stored: boolean;
}

export interface ConditionExecutionExplanation {
  action: string;
  parameters: NamedValue[];
  called: boolean;
  answer: boolean;
}

export interface EngineDecision {
  allowed: boolean;
  /** False when no mechanism decided and the default applied. */
  decided: boolean;
  /** When the default applied: the options' `defaultSource`, if they named one. */
  defaultSource?: string;
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
