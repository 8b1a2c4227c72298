import type { Pool, PoolClient } from 'pg';
import { TOKEN_ALGORITHM } from '@custos/contracts';
import { onlyRow } from '@custos/service-kit';
import { TOKEN_LIFETIME_SECONDS } from '../oauth/access-token';
import { NO_ENCRYPTION, storedForm, type KeyEncryption } from './key-encryption';
import { generateEs256, inKeyLock } from './key-store';

/**
 * How long a new key is published before it signs, by default. Verifiers (pap, pdp) refetch the
 * key set on an unknown kid at most every 5 s, auth instances reload keys every 10 s, and the JWKS
 * may be cached for 60 s on the way: after this delay every verifier that fetched the set at all
 * since the rotation knows the new key before it meets a token signed with it.
 */
export const DEFAULT_ACTIVATION_DELAY_SECONDS = 120;

/** Writes the audit record of a key change in the change's transaction (the command line's `recordCommand`). */
export type KeyAudit = (client: PoolClient, operation: 'key.rotate' | 'key.retire', kid: string) => Promise<void>;

/**
 * Beyond the token lifetime, how long a replaced key stays published after the new one activates:
 * covers auth instances that sign with the old key until their next reload (≤ 10 s) and the
 * verifiers' clock tolerance (30 s).
 */
export const RETIRE_MARGIN_SECONDS = 300;

/** Retired keys are deleted (private part included) this long after they retired. */
export const RETIRED_KEYS_KEPT_SECONDS = 24 * 3600;

export interface KeyInfo {
  kid: string;
  algorithm: string;
  createdAt: Date;
  activatesAt: Date;
  retiresAt: Date | null;
  /** `pending` (published, not signing yet), `active` (may sign), `retiring` (published until retiresAt), `retired`. */
  state: 'pending' | 'active' | 'retiring' | 'retired';
}

export interface Rotation {
  /** The new key. */
  key: KeyInfo;
  /** Keys that were signing before, with the time they retire (keys still pending are withdrawn at once). */
  retiring: KeyInfo[];
  /** Keys retired long ago whose rows were deleted. */
  deleted: number;
}

interface InfoRow {
  kid: string;
  algorithm: string;
  created_at: Date;
  activates_at: Date;
  retires_at: Date | null;
  now: Date;
}

const INFO_COLUMNS = 'kid, algorithm, created_at, activates_at, retires_at, now() AS now';

function toInfo(row: InfoRow): KeyInfo {
  const now = row.now.getTime();
  let state: KeyInfo['state'];
  if (row.retires_at !== null && row.retires_at.getTime() <= now) state = 'retired';
  else if (row.activates_at.getTime() > now) state = 'pending';
  else state = row.retires_at === null ? 'active' : 'retiring';
  return { kid: row.kid, algorithm: row.algorithm, createdAt: row.created_at, activatesAt: row.activates_at, retiresAt: row.retires_at, state };
}

/** Every signing key, newest first (private keys are never read here). */
export async function listKeys(pool: Pool): Promise<KeyInfo[]> {
  const result = await pool.query<InfoRow>(`SELECT ${INFO_COLUMNS} FROM auth.signing_keys ORDER BY activates_at DESC, created_at DESC, kid`);
  return result.rows.map(toInfo);
}

/**
 * Rotates the signing key without rejecting any token that is still valid: a new key is published
 * now and signs from `activationDelaySeconds` on; every key that was signing keeps being published
 * until every token it can still sign has expired (new activation + token lifetime + margin). A key
 * of an earlier rotation that has not activated yet is withdrawn. When no key signs at all (a new
 * database), the new key signs at once. Keys retired more than a day ago are deleted.
 */
export async function rotateSigningKey(
  pool: Pool,
  activationDelaySeconds = DEFAULT_ACTIVATION_DELAY_SECONDS,
  encryption: KeyEncryption = NO_ENCRYPTION,
  audit?: KeyAudit,
): Promise<Rotation> {
  if (!Number.isInteger(activationDelaySeconds) || activationDelaySeconds < 0 || activationDelaySeconds > 7 * 24 * 3600) {
    throw new RangeError('the activation delay must be a whole number of seconds between 0 and 604800');
  }
  const fresh = await generateEs256();
  return inKeyLock(pool, async (client) => {
    // With no key signing now there is nothing to stay compatible with: the new key signs at once.
    const signing = await client.query(
      'SELECT 1 FROM auth.signing_keys WHERE algorithm = $1 AND activates_at <= now() AND (retires_at IS NULL OR retires_at > now()) LIMIT 1',
      [TOKEN_ALGORITHM],
    );
    const delay = signing.rowCount === 0 ? 0 : activationDelaySeconds;
    const inserted = await client.query<InfoRow>(
      `INSERT INTO auth.signing_keys (kid, algorithm, private_key, public_jwk, activates_at)
       VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5))
       RETURNING ${INFO_COLUMNS}`,
      [fresh.kid, TOKEN_ALGORITHM, storedForm(fresh.kid, fresh.privatePem, encryption), JSON.stringify(fresh.jwk), delay],
    );
    const key = toInfo(onlyRow(inserted, 'insert signing key'));
    // A key still waiting to activate never signed anything: withdrawn now, or it would take over
    // from the new key at its own (later) activation.
    await client.query('UPDATE auth.signing_keys SET retires_at = now() WHERE kid <> $1 AND retires_at IS NULL AND activates_at > now()', [
      key.kid,
    ]);
    const retiring = await client.query<InfoRow>(
      `UPDATE auth.signing_keys
          SET retires_at = $2::timestamptz + make_interval(secs => $3)
        WHERE kid <> $1 AND retires_at IS NULL
        RETURNING ${INFO_COLUMNS}`,
      [key.kid, key.activatesAt, TOKEN_LIFETIME_SECONDS + RETIRE_MARGIN_SECONDS],
    );
    const deleted = await client.query(
      'DELETE FROM auth.signing_keys WHERE retires_at < now() - make_interval(secs => $1)',
      [RETIRED_KEYS_KEPT_SECONDS],
    );
    await audit?.(client, 'key.rotate', key.kid);
    return { key, retiring: retiring.rows.map(toInfo), deleted: deleted.rowCount ?? 0 };
  });
}

export type RetireOutcome = { retired: KeyInfo } | { refused: 'unknown' | 'last_key' };

/**
 * Retires one key now (a key believed compromised): it leaves the JWKS at once, and verifiers drop
 * it at their next key-set refresh, so tokens it signed stop working early. Refused for the only key
 * that could sign: rotate first (`--activate-in 0` for an emergency).
 */
export async function retireSigningKey(pool: Pool, kid: string, audit?: KeyAudit): Promise<RetireOutcome> {
  return inKeyLock(pool, async (client) => {
    // Another key must be signing already and stay: the retired one cannot be the last that signs.
    const others = await client.query<{ n: string }>(
      'SELECT count(*) AS n FROM auth.signing_keys WHERE kid <> $1 AND activates_at <= now() AND retires_at IS NULL',
      [kid],
    );
    const exists = await client.query('SELECT 1 FROM auth.signing_keys WHERE kid = $1 AND (retires_at IS NULL OR retires_at > now())', [kid]);
    if (exists.rowCount === 0) return { refused: 'unknown' };
    if (Number(onlyRow(others, 'count other signing keys').n) === 0) return { refused: 'last_key' };
    const updated = await client.query<InfoRow>(
      `UPDATE auth.signing_keys SET retires_at = now() WHERE kid = $1 RETURNING ${INFO_COLUMNS}`,
      [kid],
    );
    await audit?.(client, 'key.retire', kid);
    return { retired: toInfo(onlyRow(updated, 'retire signing key')) };
  });
}
