import type { Pool, PoolClient } from 'pg';

/** Anything that runs a query: the pool or a client inside a transaction. */
export type Queryable = Pick<Pool, 'query'> | PoolClient;

export type IsolationLevel = 'READ COMMITTED' | 'REPEATABLE READ' | 'SERIALIZABLE';

/**
 * Runs `work` in one transaction on one connection: commits when it resolves, rolls back when it
 * throws (and rethrows), so a failed request leaves nothing half-stored.
 */
export async function withTransaction<T>(
  pool: Pool,
  work: (client: PoolClient) => Promise<T>,
  { isolation = 'READ COMMITTED', readOnly = false }: { isolation?: IsolationLevel; readOnly?: boolean } = {},
): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query(`BEGIN ISOLATION LEVEL ${isolation}${readOnly ? ' READ ONLY' : ''}`);
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    try {
      await client.query('ROLLBACK');
    } catch (rollbackError) {
      // The connection itself failed: do not hand it back to the pool.
      broken = rollbackError as Error;
    }
    throw error;
  } finally {
    client.release(broken);
  }
}

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
