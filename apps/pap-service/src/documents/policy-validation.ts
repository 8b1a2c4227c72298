import { loadPolicyTree } from '@custos/policy-engine';
import type { DocumentRecord } from '../store/documents';
import { invalidDocument } from './invalid-document';
import type { PolicyMetadata } from './policy-kind';

/**
 * Validates policy XML completely with the engine the pdp uses (XML hardening, schema, language and solution
 * rules); any diagnostic is a 400 `invalid_policy` listing every problem with its location. The checked tree comes
 * with it, to be stored and shipped to the pdps.
 */
export function validatePolicy(xml: string): DocumentRecord<PolicyMetadata> {
  const outcome = loadPolicyTree(xml);
  if (!outcome.ok) throw invalidDocument('policy', outcome.diagnostics);
  const { id, solution, name, description } = outcome.policy;
  return { id, solution, name, description, xml, tree: outcome.tree };
}
