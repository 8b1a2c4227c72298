import { createHash } from 'node:crypto';
import type { CompiledPolicy } from '@custos/policy-engine';
import type { FilterPath } from './hashing';

/**
 * What a decision for one action needs beyond the pure closures, worked out once per activated set (so the hot
 * path is one map lookup). Actions missing from the index need nothing: they are decided without ports and never
 * touch the database.
 */
export interface ActionPlan {
  readonly action: string;
  /** Some deployed `eventOccurrence` names the action: record it before deciding (policy-language.md §6). */
  readonly record: boolean;
  /** Some policy with a mechanism for the action needs a port (history, pip, execute in a condition). */
  readonly usesPorts: boolean;
  /** Some policy with a mechanism for the action reads the history or valueChanged state. */
  readonly usesHistory: boolean;
  /** Filter paths of the action, whose hashes a recorded event must carry. */
  readonly filters: readonly FilterPath[];
  /** Advisory lock key of the action (64-bit, as a decimal string). */
  readonly lockKey: string;
  /** The longest span back a deployed policy can ask of the action's events (HistoryIndex.horizons), when recorded. */
  readonly horizonMs?: number;
}

export interface HistoryIndex {
  /** The plan of an action, or undefined when its decisions are pure. */
  plan(action: string): ActionPlan | undefined;
  /** Actions some deployed policy names in an `eventOccurrence`. */
  readonly recordedActions: ReadonlySet<string>;
  /** Per recorded action, the longest span back any deployed policy naming it can look at (Infinity: keep). */
  readonly horizons: ReadonlyMap<string, number>;
  /** Policies that use the history or valueChanged state (their state is kept by retention). */
  readonly historyPolicies: ReadonlySet<string>;
}

/** The transaction-level advisory lock key of an action: the first 8 bytes of a SHA-256, as a signed bigint. */
export function actionLockKey(action: string): string {
  return createHash('sha256').update(`custos:history:${action}`).digest().readBigInt64BE(0).toString();
}

export const EMPTY_HISTORY_INDEX: HistoryIndex = {
  plan: () => undefined,
  recordedActions: new Set(),
  horizons: new Map(),
  historyPolicies: new Set(),
};

interface Draft {
  usesPorts: boolean;
  usesHistory: boolean;
}

/** The index of a set of deployed policies; O(total size of their metadata). */
export function buildHistoryIndex(policies: Iterable<CompiledPolicy>): HistoryIndex {
  const recorded = new Set<string>();
  const horizons = new Map<string, number>();
  const filters = new Map<string, Map<string, FilterPath>>();
  const drafts = new Map<string, Draft>();
  const historyPolicies = new Set<string>();
  for (const policy of policies) {
    if (policy.usesHistory) historyPolicies.add(policy.id);
    for (const action of policy.historyActions) {
      recorded.add(action);
      horizons.set(action, Math.max(horizons.get(action) ?? 0, policy.maxHistorySpanMs));
    }
    for (const filter of policy.historyFilters) {
      let paths = filters.get(filter.action);
      if (paths === undefined) filters.set(filter.action, (paths = new Map()));
      paths.set(JSON.stringify([filter.name, filter.path]), { name: filter.name, path: filter.path });
    }
    if (!policy.usesPorts && !policy.usesHistory) continue;
    for (const action of policy.actions) {
      const draft = drafts.get(action) ?? { usesPorts: false, usesHistory: false };
      draft.usesPorts ||= policy.usesPorts;
      draft.usesHistory ||= policy.usesHistory;
      drafts.set(action, draft);
    }
  }
  const plans = new Map<string, ActionPlan>();
  for (const action of new Set([...recorded, ...drafts.keys()])) {
    const draft = drafts.get(action);
    plans.set(
      action,
      Object.freeze({
        action,
        record: recorded.has(action),
        usesPorts: draft?.usesPorts ?? false,
        usesHistory: draft?.usesHistory ?? false,
        filters: Object.freeze([...(filters.get(action)?.values() ?? [])]),
        lockKey: actionLockKey(action),
        ...(horizons.has(action) ? { horizonMs: horizons.get(action) } : {}),
      }),
    );
  }
  return { plan: (action) => plans.get(action), recordedActions: recorded, horizons, historyPolicies };
}
