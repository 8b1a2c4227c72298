import type { CompiledPolicy, Diagnostic, LoadOutcome } from '../api';
import type { ValidPolicy } from '../ast/valid/policy';
import { compilePolicy } from '../compile/compile-policy';
import { diagnostic } from '../diagnostics';
import { checkPolicyXml } from '../load-policy';
import { readValidPolicy } from './read-tree';
import { serializeValidPolicy } from './serialize-tree';
import { TreeDamage } from './tree-damage';
import { POLICY_TREE_VERSION, type PolicyTree } from './tree-format';

/** True when this engine reads trees of this one's format version; for any other, compile the XML instead. */
export function supportsPolicyTree(tree: unknown): boolean {
  return versionOf(tree) === POLICY_TREE_VERSION;
}

const versionOf = (tree: unknown): unknown => (typeof tree === 'object' && tree !== null && 'version' in tree ? tree.version : undefined);

/** How `loadCompiledTree` compiles. */
export interface TreeLoadOptions {
  /**
   * Keep the validated tree for the explaining program (compiled on the first explanation). Default true. False
   * keeps nothing (about 2 KB less per policy, issue 26): the policy must then be given its document again
   * (`provideExplanationSource`) before it is explained.
   */
  keepExplainingSource?: boolean;
}

/**
 * Compiles the JSON form of a checked policy (`PolicyTree`) without reading XML. Never throws for bad input: a
 * value that is not a tree of this version, or a tree damaged anywhere, comes back as one `invalid_tree`
 * diagnostic saying where (`policy.mechanisms[0].branches[0].condition.operands[1]`), and nothing is compiled.
 * Reading is the one place a tree is refused: what it accepts has the types compile needs, so compile cannot fail.
 */
export function loadCompiledTree(tree: unknown, options: TreeLoadOptions = {}): LoadOutcome {
  const read = readTree(tree);
  return read.ok ? { ok: true, policy: compilePolicy(read.policy, options.keepExplainingSource === false ? null : undefined) } : read;
}

/** The validated policy of a tree of this engine's version, or why not. */
export function readTree(tree: unknown): { ok: true; policy: ValidPolicy } | { ok: false; diagnostics: Diagnostic[] } {
  const version = versionOf(tree);
  if (version !== POLICY_TREE_VERSION) return refused(`the policy tree has version \`${String(version)}\`; this engine reads version ${POLICY_TREE_VERSION}`);
  try {
    return { ok: true, policy: readValidPolicy(typeof tree === 'object' && tree !== null && 'policy' in tree ? tree.policy : undefined) };
  } catch (error) {
    if (error instanceof TreeDamage) return refused(error.message);
    throw error;
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

function refused(message: string): { ok: false; diagnostics: Diagnostic[] } {
  return { ok: false, diagnostics: [diagnostic('invalid_tree', message)] };
}
