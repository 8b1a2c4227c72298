import { randomBytes } from 'node:crypto';
import type { Pool } from 'pg';

export const HISTORY_SECRET_SETTING = 'history_secret';

/**
 * The key of the history hashes: `PDP_HISTORY_SECRET` when set; otherwise the one in `pdp.settings`, generated
 * by whichever replica starts first (INSERT … ON CONFLICT DO NOTHING, then read back), so every replica uses the
 * same key. Changing the key makes earlier records unmatchable (they can never be read back in clear).
 */
export async function historySecret(pool: Pick<Pool, 'query'>, configured: string | undefined): Promise<string> {
  if (configured !== undefined) return configured;
  await pool.query('INSERT INTO pdp.settings (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [
    HISTORY_SECRET_SETTING,
    randomBytes(32).toString('base64url'),
  ]);
  const stored = await pool.query<{ value: string }>('SELECT value FROM pdp.settings WHERE name = $1', [HISTORY_SECRET_SETTING]);
  const value = stored.rows[0]?.value;
  if (value === undefined) throw new Error('the history secret could not be stored');
  return value;
}
