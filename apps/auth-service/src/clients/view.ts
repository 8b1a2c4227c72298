import { ALL_SOLUTIONS, type ClientView } from '@custos/contracts';
import type { Principal } from '@custos/service-kit';
import type { ClientRecord } from './client-store';

export type { ClientView };

export const toView = (client: ClientRecord): ClientView => ({
  client_id: client.id,
  solutions: client.solutions,
  scopes: client.scopes,
  description: client.description,
  created_at: client.createdAt.toISOString(),
  updated_at: client.updatedAt.toISOString(),
});

/**
 * May this administrator see and manage a client acting for `solutions`? An administrator of
 * every solution may manage all clients; one bound to some solutions only clients bound to a
 * subset of them (so it can neither see nor mint access beyond its own).
 */
export function mayManage(principal: Principal, solutions: readonly string[]): boolean {
  if (principal.allSolutions) return true;
  return solutions.length > 0 && solutions.every((solution) => solution !== ALL_SOLUTIONS && principal.mayAccess(solution));
}
