import type { Policy } from '@custos/contracts';
import { documentResource, type DocumentKind } from './kind';
import { validatePolicy } from './policy-validation';
import { POLICY_TREE } from './policy-tree';

/** What a policy keeps beside id, solution and XML, read from its root element. */
export type PolicyMetadata = { name: string | null; description: string | null };

export const POLICY_KIND: DocumentKind<PolicyMetadata, Policy> = {
  name: 'policy',
  table: { name: 'pap.policies', versions: 'pap.policy_versions', metadata: ['name', 'description'], tree: POLICY_TREE, tracksDeployment: true },
  validate: validatePolicy,
  toResource: (row) => documentResource(row, { name: row.name, description: row.description }),
  listsDeployed: true,
};
