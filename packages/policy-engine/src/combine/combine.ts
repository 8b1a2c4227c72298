import type { EngineModifier } from '../api';

/** The part of a mechanism's outcome that the combination reads. */
export interface Contribution {
  readonly policyId: string;
  /** Position of the mechanism in its policy. */
  readonly mechanism: number;
  readonly verdict: 'allow' | 'inhibit' | 'none' | 'error';
  readonly delayMs: number;
  /** In `modify` order within the branch. */
  readonly modifiers: readonly EngineModifier[];
}

export interface CombinedDecision {
  readonly allowed: boolean;
  /** False when nothing decided and the default applied. */
  readonly decided: boolean;
  readonly modifiers: EngineModifier[];
  readonly delayMs: number;
}

/**
 * policy-language.md §7, exactly:
 * 1. nothing decides → the default decision, no modifiers, no delay;
 * 2. any inhibit, or any failed mechanism (fail closed) → inhibited, no modifiers, the largest inhibiting delay;
 * 3. otherwise allowed with the modifiers of every allowing branch ordered by policy id, then mechanism, then
 *    `modify` order, and the largest allowing delay.
 * Pure: the result depends only on the arguments, not on the order of `contributions`.
 */
export function combine(contributions: readonly Contribution[], defaultDecision: 'allow' | 'inhibit'): CombinedDecision {
  let decided = false;
  let inhibited = false;
  let inhibitDelay = 0;
  let allowDelay = 0;
  const allowing: Contribution[] = [];
  for (const contribution of contributions) {
    switch (contribution.verdict) {
      case 'none':
        break;
      case 'inhibit':
      case 'error':
        decided = true;
        inhibited = true;
        inhibitDelay = Math.max(inhibitDelay, contribution.delayMs);
        break;
      case 'allow':
        decided = true;
        allowDelay = Math.max(allowDelay, contribution.delayMs);
        allowing.push(contribution);
        break;
    }
  }
  if (!decided) return { allowed: defaultDecision === 'allow', decided: false, modifiers: [], delayMs: 0 };
  if (inhibited) return { allowed: false, decided: true, modifiers: [], delayMs: inhibitDelay };
  // Mechanisms usually arrive in this order already (the set indexes them so); sorting is then skipped.
  if (!isSorted(allowing)) allowing.sort(byPolicyThenMechanism);
  const modifiers: EngineModifier[] = [];
  for (const contribution of allowing) for (const modifier of contribution.modifiers) modifiers.push(modifier);
  return { allowed: true, decided: true, modifiers, delayMs: allowDelay };
}

function isSorted(contributions: readonly Contribution[]): boolean {
  let previous: Contribution | undefined;
  for (const contribution of contributions) {
    if (previous !== undefined && byPolicyThenMechanism(previous, contribution) > 0) return false;
    previous = contribution;
  }
  return true;
}

/** Code-unit order of ids, so the order never depends on a locale. */
function byPolicyThenMechanism(
  left: { readonly policyId: string; readonly mechanism: number },
  right: { readonly policyId: string; readonly mechanism: number },
): number {
  if (left.policyId !== right.policyId) return left.policyId < right.policyId ? -1 : 1;
  return left.mechanism - right.mechanism;
}
