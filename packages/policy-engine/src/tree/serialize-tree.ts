import type { ValidPolicy } from '../ast/valid/policy';
import { POLICY } from './policy-codec';
import { POLICY_TREE_VERSION, type PolicyTree } from './tree-format';

/**
 * The JSON form of a validated policy (see `PolicyTree`), written through the codec that reads it: a plain value
 * that survives `JSON.stringify` unchanged and that `loadCompiledTree` compiles without reading XML.
 */
export function serializeValidPolicy(policy: ValidPolicy): PolicyTree {
  return { version: POLICY_TREE_VERSION, policy: POLICY.write(policy) };
}
