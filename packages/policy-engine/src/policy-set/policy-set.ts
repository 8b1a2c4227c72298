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
      const candidates = new Set([...(this.actions.get(action)?.policyIds ?? []), ...changedIds]);
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
  const matching = [...candidates]
    .flatMap((id) => {
      const policy = policies.get(id);
      return policy?.actions.includes(action) === true ? [{ id, policy }] : [];
    })
    // Code-unit order, the order combination uses (policy-language.md §7).
    .sort((left, right) => (left.id < right.id ? -1 : left.id > right.id ? 1 : 0));
  if (matching.length === 0) return null;
  const policyIds = matching.map((entry) => entry.id);
  const mechanisms = matching.flatMap((entry) => programOf(entry.policy).mechanisms.filter((mechanism) => mechanism.event === action));
  return { policyIds: Object.freeze(policyIds), mechanisms: Object.freeze(mechanisms) };
}
