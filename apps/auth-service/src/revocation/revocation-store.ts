import type { Pool } from 'pg';
import { revocationDigest, type RevocationEntry } from '@custos/service-kit';
import { TOKEN_LIFETIME_SECONDS } from '../oauth/access-token';

/**
 * Beyond the last `exp` it covers, how long an entry is kept: verifiers accept a token up to 30 s past
 * its `exp` (clock leeway), and auth may have issued it up to a second late (see `issueNoEarlierThan`).
 */
export const REVOCATION_MARGIN_SECONDS = 60;

interface Row {
  type: 'sub' | 'jti';
  id: string;
  not_after: string | null;
  expires_at: string;
}

const toEntry = (row: Row): RevocationEntry =>
  row.type === 'sub'
    ? { type: 'sub', id: row.id, notAfter: Number(row.not_after ?? 0), expiresAt: Number(row.expires_at) }
    : { type: 'jti', id: row.id, expiresAt: Number(row.expires_at) };

const UPSERT = `INSERT INTO auth.revocations AS r (type, id, not_after, expires_at) VALUES ($1, $2, $3, $4)
  ON CONFLICT (type, id) DO UPDATE
     SET not_after = GREATEST(r.not_after, EXCLUDED.not_after), expires_at = GREATEST(r.expires_at, EXCLUDED.expires_at)
  RETURNING type, id, not_after, expires_at`;

/** The revocation list of schema `auth`; entries are deleted once every token they cover has expired. */
export class RevocationStore {
  /** On the pool, or on a transaction's client to revoke with an audit record. */
  constructor(private readonly pool: Pick<Pool, 'query'>) {}

  /** Revokes every token issued to `clientId` up to `nowMs` (a deleted client, a rotated secret). */
  async revokeClient(clientId: string, nowMs: number): Promise<RevocationEntry> {
    const notAfter = Math.floor(nowMs / 1000);
    const result = await this.pool.query<Row>(UPSERT, [
      'sub',
      revocationDigest(clientId),
      notAfter,
      notAfter + TOKEN_LIFETIME_SECONDS + REVOCATION_MARGIN_SECONDS,
    ]);
    return toEntry(this.single(result.rows));
  }

  /** Revokes one token, until its own expiry. */
  async revokeToken(tokenId: string, expiresAt: number): Promise<RevocationEntry> {
    const result = await this.pool.query<Row>(UPSERT, ['jti', revocationDigest(tokenId), null, expiresAt + REVOCATION_MARGIN_SECONDS]);
    return toEntry(this.single(result.rows));
  }

  /** Every entry that still covers a token, after deleting those that no longer do. */
  async list(nowMs: number): Promise<RevocationEntry[]> {
    const now = Math.floor(nowMs / 1000);
    await this.pool.query('DELETE FROM auth.revocations WHERE expires_at < $1', [now]);
    const result = await this.pool.query<Row>('SELECT type, id, not_after, expires_at FROM auth.revocations WHERE expires_at >= $1 ORDER BY type, id', [now]);
    return result.rows.map(toEntry);
  }

  /**
   * The earliest `iat` a new token of `clientId` may carry: one second after its tokens were last
   * revoked, so that a token issued in the second of the revocation (after a secret rotation) is not
   * taken for one it covers. Undefined when the client has no revocation.
   */
  async issueNoEarlierThan(clientId: string): Promise<number | undefined> {
    const result = await this.pool.query<{ not_after: string }>("SELECT not_after FROM auth.revocations WHERE type = 'sub' AND id = $1", [
      revocationDigest(clientId),
    ]);
    const row = result.rows[0];
    return row === undefined ? undefined : Number(row.not_after) + 1;
  }

  /** Whether a token (its client, `jti` and `iat`) is revoked: auth's own admin API asks the database directly. */
  async covers(clientId: string, tokenId: string | undefined, issuedAt: number): Promise<boolean> {
    const result = await this.pool.query(
      `SELECT 1 FROM auth.revocations
        WHERE (type = 'sub' AND id = $1 AND not_after >= $3) OR (type = 'jti' AND id = $2)
        LIMIT 1`,
      [revocationDigest(clientId), tokenId === undefined ? '' : revocationDigest(tokenId), issuedAt],
    );
    return (result.rowCount ?? 0) > 0;
  }

  private single(rows: Row[]): Row {
    const [row] = rows;
    if (!row) throw new Error('the revocation was not stored');
    return row;
  }
}
