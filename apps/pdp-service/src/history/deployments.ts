/**
 * The revision at which each deployed policy's current deployment began (pap's `deployedAt`), by policy id. A
 * policy revoked and deployed again has a new one, a policy replaced while deployed keeps its own; policies shipped
 * without one are absent. valueChanged state is kept per deployment (docs/api.md).
 */
export type Deployments = ReadonlyMap<string, number>;

export const NO_DEPLOYMENTS: Deployments = new Map();

/** The deployment valueChanged state of `policyId` is stored under: 0 for a policy shipped without `deployedAt`. */
export const deploymentOf = (deployments: Deployments, policyId: string): number => deployments.get(policyId) ?? 0;
