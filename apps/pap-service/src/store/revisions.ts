import type { PoolClient } from 'pg';
import type { Component, DeployedPolicy, PolicyChange, SolutionSettings } from '@custos/contracts';
import { onlyRow } from '@custos/service-kit';
import { toNumber, type Queryable } from './db';

/**
 * A change of what the pdps decide with, before it has a revision: a policy or timer deployed or revoked (the
 * id's kind tells which), several of them at once (a change set), a PIP/PXP component registered or removed, or a
 * solution's settings replaced (contracts/nats.ts).
 */
export type PendingChange =
  | { type: 'deploy'; policy: DeployedPolicy }
  | { type: 'revoke'; policyId: string }
  | { type: 'documents'; deploy: DeployedPolicy[]; revoke: string[] }
  | { type: 'component'; component: Component }
  | { type: 'unregister'; componentId: string }
  | { type: 'settings'; solution: string; settings: SolutionSettings };

/** The revision of the deployed set as committed right now. */
export async function currentRevision(db: Queryable): Promise<number> {
  const result = await db.query<{ revision: string }>('SELECT revision FROM pap.state');
  return toNumber(onlyRow(result, 'read the revision').revision);
}

/**
 * Inside the caller's transaction: takes the next revision and records the change in the outbox.
 * The UPDATE locks the single state row until commit, so writers are serialised and revisions
 * are gap-free (a rolled-back transaction gives its number back) and commit in revision order.
 */
export async function recordChange(client: PoolClient, change: PendingChange | ((revision: number) => PendingChange)): Promise<number> {
  const bumped = await client.query<{ revision: string }>(
    'UPDATE pap.state SET revision = revision + 1 RETURNING revision',
  );
  const revision = toNumber(onlyRow(bumped, 'bump the revision').revision);
  // A change that names its own revision (a deploy's `deployedAt`) is made once the revision is known.
  const pending = typeof change === 'function' ? change(revision) : change;
  const message: PolicyChange = { revision, ...pending };
  await client.query('INSERT INTO pap.outbox (revision, message) VALUES ($1, $2)', [revision, JSON.stringify(message)]);
  return revision;
}
