import type { CompiledPolicy, PolicySet } from '../api';
import { IndexedPolicySet } from './policy-set';

export function emptyPolicySet(): PolicySet {
  return IndexedPolicySet.EMPTY;
}

/** Throws a TypeError for an object that did not come from `loadPolicy` (a caller's bug, not bad input). */
export function createPolicySet(policies: Iterable<CompiledPolicy>): PolicySet {
  return IndexedPolicySet.EMPTY.with(policies);
}
