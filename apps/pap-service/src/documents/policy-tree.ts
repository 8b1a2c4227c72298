import { loadPolicyTree, supportsPolicyTree } from '@custos/policy-engine';
import type { DocumentTree } from '../store/documents';

/**
 * The checked tree pap ships beside a policy's XML (the engine's PolicyTree), so pdps compile without reading XML.
 * Computed when a policy is added or replaced; a stored tree this engine cannot read (rows from before trees were
 * stored, or from an older engine version) is computed again from the XML when a snapshot or change needs it.
 */
export const POLICY_TREE: DocumentTree = {
  isCurrent: (tree) => supportsPolicyTree(tree),
  // A stored policy the engine now refuses travels without a tree: the pdp reads its XML and reports the problem.
  compute: (xml) => {
    const outcome = loadPolicyTree(xml);
    return outcome.ok ? outcome.tree : null;
  },
};
