import type { CompiledPolicy, PolicySet } from '../api';
import type { MechanismProgram } from '../compile/program';
import { programOf } from '../compile/registry';

/** Everything deployed for one action, ordered by policy id then mechanism, ready for `decide`. */
export interface ActionEntry {
  readonly policyIds: readonly string[];
  readonly mechanisms: readonly MechanismProgram[];
}

/** Action → ids of policies whose mechanisms for it may have changed. */
type Touched = Map<string, Set<string>>;

/**
 * The deployed set: policies by id, and mechanisms by action URN, so a decision costs one map lookup plus the
 * matching mechanisms, whatever else is deployed. Immutable; `with`/`without` rebuild only the touched actions.
 */
export class IndexedPolicySet implements PolicySet {
  static readonly EMPTY = new IndexedPolicySet(new Map(), new Map());

  private constructor(
    private readonly policies: ReadonlyMap<string, CompiledPolicy>,
    private readonly actions: ReadonlyMap<string, ActionEntry>,
  ) {}

  get size(): number {
    return this.policies.size;
  }

  has(policyId: string): boolean {
    return this.policies.has(policyId);
  }

  get(policyId: string): CompiledPolicy | undefined {
    return this.policies.get(policyId);
  }

  /** Undefined when nothing reacts to the action. */
  entryFor(action: string): ActionEntry | undefined {
    return this.actions.get(action);
  }

  /** Later policies with the same id replace earlier ones, within the argument as well. */
  with(policies: Iterable<CompiledPolicy>): PolicySet {
    const next = new Map(this.policies);
    const touched: Touched = new Map();
    for (const policy of policies) {
      programOf(policy); // refuses objects that did not come from loadPolicy before anything is indexed
      const previous = next.get(policy.id);
      if (previous !== undefined) touch(touched, previous);
      touch(touched, policy);
      next.set(policy.id, policy);
    }
    return next.size === this.policies.size && touched.size === 0 ? this : this.reindexed(next, touched);
  }

  without(policyIds: Iterable<string>): PolicySet {
    const next = new Map(this.policies);
    const touched: Touched = new Map();
    for (const id of policyIds) {
      const removed = next.get(id);
      if (removed === undefined) continue;
      touch(touched, removed);
      next.delete(id);
    }
    return next.size === this.policies.size ? this : this.reindexed(next, touched);
  }

  private reindexed(policies: ReadonlyMap<string, CompiledPolicy>, touched: Touched): IndexedPolicySet {
    const actions = new Map(this.actions);
    for (const [action, changedIds] of touched) {
      const before = this.actions.get(action)?.policyIds;
      const candidates = before === undefined ? changedIds : new Set([...before, ...changedIds]);
      const entry = buildEntry(action, policies, candidates);
      if (entry === null) actions.delete(action);
      else actions.set(action, entry);
    }
    return new IndexedPolicySet(policies, actions);
  }
}

function touch(touched: Touched, policy: CompiledPolicy): void {
  for (const action of policy.actions) {
    const ids = touched.get(action);
    if (ids === undefined) touched.set(action, new Set([policy.id]));
    else ids.add(policy.id);
  }
}

function buildEntry(action: string, policies: ReadonlyMap<string, CompiledPolicy>, candidates: Set<string>): ActionEntry | null {
  // Plain loops and arrays of exactly their length: a set of 10,000 policies builds 10,000 entries at start, and an
  // array grown by push keeps room for 17 elements for as long as the set lives (issue 26).
  const matching: string[] = [];
  for (const id of candidates) if (policies.get(id)?.actions.includes(action) === true) matching.push(id);
  if (matching.length === 0) return null;
  // Code-unit order, the order combination uses (policy-language.md §7).
  if (matching.length > 1) matching.sort((left, right) => (left < right ? -1 : left > right ? 1 : 0));
  const mechanisms: MechanismProgram[] = [];
  for (const id of matching) {
    const policy = policies.get(id);
    if (policy === undefined) continue;
    for (const mechanism of programOf(policy).mechanisms) if (mechanism.event === action) mechanisms.push(mechanism);
  }
  return { policyIds: Object.freeze(matching.slice()), mechanisms: Object.freeze(mechanisms.slice()) };
}
