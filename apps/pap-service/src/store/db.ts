import type { Pool, PoolClient } from 'pg';
import { withTransaction } from '@custos/service-kit';

/** Anything that runs a query: the pool or a client inside a transaction. */
export type Queryable = Pick<Pool, 'query'> | PoolClient;

/** A bigint column as a JS number (revisions and counts stay far below 2^53). */
export const toNumber = (value: unknown): number => (typeof value === 'number' ? value : Number(value));

/**
 * `withTransaction` for a write that may change the deployed set: once a change is committed (`changed`), `onChange`
 * is told (it wakes the outbox publisher), so no caller has to remember to.
 */
export async function withChangeTransaction<T extends { changed: boolean }>(
  pool: Pool,
  onChange: () => void,
  work: (client: PoolClient) => Promise<T>,
): Promise<T> {
  const outcome = await withTransaction(pool, work);
  if (outcome.changed) onChange();
  return outcome;
}
