import { ALL_SCOPES, ALL_SOLUTIONS } from '@custos/contracts';
import type { Logger } from '@custos/service-kit';
import type { BootstrapClient } from '../config';
import { hashSecret, verifySecret } from '../hashing/secrets';
import type { ClientStore } from './client-store';

export type BootstrapOutcome = 'created' | 'updated' | 'unchanged';

const sameSet = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && new Set(a).size === a.length && b.every((item) => a.includes(item));

/**
 * Makes sure the configured admin client exists with every scope, every solution and the
 * configured secret (api.md §1). Safe when several instances start together: a lost insert race
 * falls through to checking the row the winner wrote.
 */
export async function ensureBootstrapClient(store: ClientStore, bootstrap: BootstrapClient, logger: Logger): Promise<BootstrapOutcome> {
  const { clientId, clientSecret } = bootstrap;
  const solutions = [ALL_SOLUTIONS];
  if (clientSecret.length < 16) logger.warn({ clientId }, 'BOOTSTRAP_CLIENT_SECRET is shorter than 16 characters');
  for (let attempt = 0; attempt < 3; attempt++) {
    const existing = await store.find(clientId);
    if (!existing) {
      const created = await store.create({
        id: clientId,
        secretHash: await hashSecret(clientSecret),
        scopes: ALL_SCOPES,
        solutions,
        description: 'bootstrap admin client (BOOTSTRAP_CLIENT_ID)',
      });
      if (created) {
        logger.info({ clientId }, 'bootstrap client created');
        return 'created';
      }
      continue;
    }
    let outcome: BootstrapOutcome = 'unchanged';
    if (!sameSet(existing.scopes, ALL_SCOPES) || !sameSet(existing.solutions, solutions)) {
      if (!(await store.setGrants(clientId, ALL_SCOPES, solutions))) continue;
      outcome = 'updated';
    }
    if (!(await verifySecret(clientSecret, existing.secretHash))) {
      if (!(await store.setSecretHash(clientId, await hashSecret(clientSecret)))) continue;
      outcome = 'updated';
    }
    if (outcome === 'updated') logger.info({ clientId }, 'bootstrap client updated');
    return outcome;
  }
  throw new Error(`the bootstrap client \`${clientId}\` kept changing while it was being set up`);
}
