import type { CompiledPolicy, PolicySet } from '../api';
import type { ValidPolicy } from '../ast/valid/policy';
import { checkPolicyXml } from '../load-policy';
import { IndexedPolicySet } from '../policy-set/policy-set';
import { readTree, supportsPolicyTree } from '../tree/load-tree';
import { explainingProgram } from './compile-policy';
import { canExplain, programOf, provideExplaining } from './registry';

/**
 * The ids of the policies deciding `action` in `set` that cannot be explained until they are given their document
 * (`provideExplanationSource`): those compiled with `keepExplainingSource: false` and not explained since. Empty when
 * an explanation of the action can run now.
 */
export function explanationSourcesNeeded(set: PolicySet, action: string): string[] {
  if (!(set instanceof IndexedPolicySet)) throw new TypeError('policy set was not created by this engine');
  const entry = set.entryFor(action);
  if (entry === undefined) return [];
  const ids = new Set<string>();
  for (const mechanism of entry.mechanisms) if (!canExplain(mechanism)) ids.add(mechanism.policyId);
  return [...ids];
}

/** A deployed document as it travels: its XML and, when the sender had one, its checked tree. */
export interface ExplanationSource {
  xml: string;
  tree?: unknown;
}

/**
 * Gives `policy` its explaining program, compiled now from its document: the tree when this engine reads its version,
 * else the XML. False when the document does not load, declares another id or another number of mechanisms (it is
 * not this policy's document); the caller makes sure it is the text the policy was compiled from (the pdp compares
 * the XML's fingerprint). A policy that can be explained already is left as it is (true).
 */
export function provideExplanationSource(policy: CompiledPolicy, source: ExplanationSource): boolean {
  const { mechanisms } = programOf(policy);
  if (mechanisms.every(canExplain)) return true;
  const valid = validPolicyOf(source);
  if (valid === undefined || valid.id !== policy.id || valid.mechanisms.length !== mechanisms.length) return false;
  provideExplaining(mechanisms, explainingProgram(valid));
  return true;
}

function validPolicyOf({ xml, tree }: ExplanationSource): ValidPolicy | undefined {
  if (tree !== undefined && supportsPolicyTree(tree)) {
    const read = readTree(tree);
    return read.ok ? read.policy : undefined;
  }
  const checked = checkPolicyXml(xml);
  return checked.ok ? checked.policy : undefined;
}
