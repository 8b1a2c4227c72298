import type { Route } from '@custos/service-kit';

/**
 * The name each changing operation of pap has in the audit trail; a route not named here is not audited (reads, and
 * `POST …/validate`, which stores nothing). Both forms of revoke share a name. `test/audit-operations.test.ts` holds every other write to a name.
 */
const OPERATIONS: Readonly<Record<string, string>> = {
  'post /ws/component': 'component.register',
  'delete /ws/component/{identifier}': 'component.unregister',
  'post /ws/changes': 'changes.apply',
  'put /ws/solutions/{solution}/settings': 'settings.replace',
  ...documentOperations('policy'),
  ...documentOperations('timer'),
};

function documentOperations(kind: 'policy' | 'timer'): Record<string, string> {
  return {
    [`post /ws/${kind}`]: `${kind}.add`,
    [`put /ws/${kind}/{id}`]: `${kind}.replace`,
    [`delete /ws/${kind}/{id}`]: `${kind}.remove`,
    [`post /ws/${kind}/{id}/deploy`]: `${kind}.deploy`,
    [`post /ws/${kind}/{id}/revoke`]: `${kind}.revoke`,
    // The spec's GET form of revoke (api.md §4) changes the deployed set too.
    [`get /ws/${kind}/{id}/revoke`]: `${kind}.revoke`,
    [`post /ws/${kind}/{id}/versions/{n}/restore`]: `${kind}.restore`,
  };
}

/** The audit operation of a route, undefined for one that changes nothing. */
export const papOperationOf = (route: Pick<Route<unknown>, 'method' | 'path'>): string | undefined => OPERATIONS[`${route.method} ${route.path}`];
