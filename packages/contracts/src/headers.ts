export const HEADERS = {
  policyRevision: 'Policy-Revision',
  minPolicyRevision: 'Min-Policy-Revision',
  requestId: 'X-Request-Id',
  /** A warning on a successful answer (warnings.ts). */
  warning: 'Custos-Warning',
  /** The decision id of an AuthZEN answer; for `/access/v1/evaluations` the ids in the order of the decisions, comma-separated. */
  decisionId: 'Custos-Decision-Id',
} as const;

/** How long a pdp waits for a demanded revision before answering 503 (api.md §3). */
export const MIN_REVISION_WAIT_MS = 2000;
