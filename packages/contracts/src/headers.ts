export const HEADERS = {
  policyRevision: 'Policy-Revision',
  minPolicyRevision: 'Min-Policy-Revision',
  requestId: 'X-Request-Id',
} as const;

/** How long a pdp waits for a demanded revision before answering 503 (api.md §3). */
export const MIN_REVISION_WAIT_MS = 2000;
