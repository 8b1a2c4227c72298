import type { Pool, PoolClient } from 'pg';

export type IsolationLevel = 'READ COMMITTED' | 'REPEATABLE READ' | 'SERIALIZABLE';

export interface TransactionOptions {
  isolation?: IsolationLevel;
  readOnly?: boolean;
}

/**
 * Runs `work` in one transaction on one connection: commits when it resolves, rolls back when it throws (and
 * rethrows), so a failure leaves nothing half-stored. A connection whose rollback failed is in an unknown state (the
 * server may have gone away mid-transaction): it is discarded, never handed back to the pool.
 */
export async function withTransaction<T>(
  pool: Pick<Pool, 'connect'>,
  work: (client: PoolClient) => Promise<T>,
  { isolation = 'READ COMMITTED', readOnly = false }: TransactionOptions = {},
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
      broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
    }
    throw error;
  } finally {
    client.release(broken);
  }
}
