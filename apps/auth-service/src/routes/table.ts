import type { Route } from '@custos/service-kit';
import { deleteClient, showClient } from './client';
import { rotateSecret } from './client-secret';
import { createClient, listClients } from './clients';
import { auditRoute } from './audit';
import type { AuthRouteDeps } from './context';
import { issueToken, listRevocations, publishKeys, revokeToken } from './oauth-routes';

/** Every operation of auth (api.md §2), once: the router, the request checks and the OpenAPI paths come from it. */
export const AUTH_ROUTES: ReadonlyArray<Route<AuthRouteDeps>> = [
  issueToken,
  revokeToken,
  listRevocations,
  publishKeys,
  listClients,
  createClient,
  showClient,
  deleteClient,
  rotateSecret,
  auditRoute,
];
