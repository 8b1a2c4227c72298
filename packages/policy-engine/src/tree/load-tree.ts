import type { CompiledPolicy, Diagnostic, LoadOutcome } from '../api';
import { compilePolicy } from '../compile/compile-policy';
import { diagnostic } from '../diagnostics';
import { checkPolicyXml } from '../load-policy';
import { readValidPolicy } from './read-tree';
import { serializeValidPolicy } from './serialize-tree';
import { TreeDamage } from './tree-damage';
import { POLICY_TREE_VERSION, type PolicyTree } from './tree-format';

/** True when this engine reads trees of this one's format version; for any other, compile the XML instead. */
export function supportsPolicyTree(tree: unknown): boolean {
  return typeof tree === 'object' && tree !== null && (tree as { version?: unknown }).version === POLICY_TREE_VERSION;
}

/**
 * Compiles the JSON form of a checked policy (`PolicyTree`) without reading XML. Never throws for bad input: a
 * value that is not a tree of this version, or a tree damaged anywhere, comes back as one `invalid_tree`
 * diagnostic saying where (`policy.mechanisms[0].branches[0].condition.operands[1]`), and nothing is compiled.
 */
export function loadCompiledTree(tree: unknown): LoadOutcome {
  if (!supportsPolicyTree(tree)) {
    const version = typeof tree === 'object' && tree !== null ? (tree as { version?: unknown }).version : undefined;
    return refused(`the policy tree has version \`${String(version)}\`; this engine reads version ${POLICY_TREE_VERSION}`);
  }
  try {
    return { ok: true, policy: compilePolicy(readValidPolicy((tree as PolicyTree).policy)) };
  } catch (error) {
    if (error instanceof TreeDamage) return refused(error.message);
    // The reader checks every value compile relies on, so this is a bug; still a refusal, not a crash of the caller.
    return refused(`the policy tree does not compile: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** A checked policy with its JSON form, for whoever ships policies to be compiled elsewhere (pap). */
export type TreeLoadOutcome = { ok: true; policy: CompiledPolicy; tree: PolicyTree } | { ok: false; diagnostics: Diagnostic[] };

/** `loadPolicy`, and on success also the tree `loadCompiledTree` compiles to the same policy. */
export function loadPolicyTree(xml: string): TreeLoadOutcome {
  const checked = checkPolicyXml(xml);
  if (!checked.ok) return checked;
  return { ok: true, policy: compilePolicy(checked.policy), tree: serializeValidPolicy(checked.policy) };
}

function refused(message: string): LoadOutcome {
  return { ok: false, diagnostics: [diagnostic('invalid_tree', message)] };
}
