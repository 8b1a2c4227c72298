import type { ValidPolicy } from '../ast/valid/policy';
import { DECLARATION, POLICY } from './policy-codec';
import { TreeDamage } from './tree-damage';
import { TreeScope } from './tree-scope';

/**
 * Reads the `policy` of a `PolicyTree` back into the validated tree through its codec (`policy-codec.ts`), checking
 * every value on the way as the passes and the builder would have guaranteed it: kinds, result types of operands,
 * operand counts, literal types, ranges, declaration references (known, same type, no cycle). Throws `TreeDamage`
 * at the first value that is off, its message naming where (`policy.mechanisms[0].event: is not a string`).
 */
export function readValidPolicy(value: unknown): ValidPolicy {
  try {
    return POLICY.read(value, new TreeScope(DECLARATION));
  } catch (error) {
    throw error instanceof TreeDamage ? error.root('policy') : error;
  }
}
