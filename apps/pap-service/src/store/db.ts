import type { Pool, PoolClient } from 'pg';
import { withTransaction } from '@custos/service-kit';

/** Anything that runs a query: the pool or a client inside a transaction. */
export type Queryable = Pick<Pool, 'query'> | PoolClient;

/** A bigint column as a JS number (revisions and counts stay far below 2^53). */
export const toNumber = (value: unknown): number => (typeof value === 'number' ? value : Number(value));

/**
 * What runs at the end of a change's transaction with its outcome, before the commit: the audit record of the
 * change (routes/audited.ts), which thereby commits or rolls back with it.
 */
export type ChangeHook<T> = (client: PoolClient, outcome: T) => Promise<void>;

/** `work`, then `hook` with its outcome, in the caller's transaction. */
export async function workThenHook<T>(client: PoolClient, work: (client: PoolClient) => Promise<T>, hook: ChangeHook<T> | undefined): Promise<T> {
  const outcome = await work(client);
  if (hook) await hook(client, outcome);
  return outcome;
}

/**
 * `withTransaction` for a write that may change the deployed set: once a change is committed (`changed`), `onChange`
 * is told (it wakes the outbox publisher), so no caller has to remember to. `hook` runs last, inside the transaction.
 */
export async function withChangeTransaction<T extends { changed: boolean }>(
  pool: Pool,
  onChange: () => void,
  work: (client: PoolClient) => Promise<T>,
  hook?: ChangeHook<T>,
): Promise<T> {
  const outcome = await withTransaction(pool, (client) => workThenHook(client, work, hook));
  if (outcome.changed) onChange();
  return outcome;
}
