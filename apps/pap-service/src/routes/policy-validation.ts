import { loadPolicy, type CompiledPolicy } from '@custos/policy-engine';
import { invalidDocument } from './invalid-document';
import type { PolicyRecord } from '../store/policies';

/** Policy bodies up to 5 MiB (api.md §4). */
export const POLICY_BODY_LIMIT = 5 * 1024 * 1024;

/**
 * Validates policy XML completely with the engine the pdp uses (XML hardening, schema, language
 * and solution rules); any diagnostic is a 400 `invalid_policy` listing every problem with its location.
 */
export function validatePolicy(xml: string): CompiledPolicy {
  const outcome = loadPolicy(xml);
  if (outcome.ok) return outcome.policy;
  throw invalidDocument('policy', outcome.diagnostics);
}

export const toRecord = (policy: CompiledPolicy, xml: string): PolicyRecord => ({
  id: policy.id,
  solution: policy.solution,
  name: policy.name,
  description: policy.description,
  xml,
});
