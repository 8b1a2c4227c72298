import type { Route } from '@custos/service-kit';

/**
 * The name each changing operation of auth has in the audit trail; a route not named here is not audited (reads,
 * and `POST /oauth/token`: a sign-in changes nothing, and failed ones are counted by the failure limiter). Key
 * changes are made on the command line (`key.rotate`, `key.retire`: audit/trail.ts).
 */
const OPERATIONS: Readonly<Record<string, string>> = {
  'post /clients': 'client.create',
  'delete /clients/{id}': 'client.delete',
  'post /clients/{id}/secret': 'client.rotate-secret',
  'post /oauth/revoke': 'token.revoke',
};

/** The audit operation of a route, undefined for one that changes nothing. */
export const authOperationOf = (route: Pick<Route<unknown>, 'method' | 'path'>): string | undefined => OPERATIONS[`${route.method} ${route.path}`];
