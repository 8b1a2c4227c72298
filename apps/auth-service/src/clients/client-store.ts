import { randomBytes } from 'node:crypto';
import type { Pool } from 'pg';

/** A client as stored; the secret only as its hash. */
export interface ClientRecord {
  id: string;
  secretHash: string;
  scopes: string[];
  solutions: string[];
  description: string;
  createdAt: Date;
  updatedAt: Date;
}

export interface NewClient {
  id: string;
  secretHash: string;
  scopes: readonly string[];
  solutions: readonly string[];
  description: string;
}

interface ClientRow {
  id: string;
  secret_hash: string;
  scopes: string[];
  solutions: string[];
  description: string;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = 'id, secret_hash, scopes, solutions, description, created_at, updated_at';

const toRecord = (row: ClientRow): ClientRecord => ({
  id: row.id,
  secretHash: row.secret_hash,
  scopes: row.scopes,
  solutions: row.solutions,
  description: row.description,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

/** A generated client id: `c_` and 16 random bytes, base64url (128 bits, URL-safe). */
export function generateClientId(): string {
  return `c_${randomBytes(16).toString('base64url')}`;
}

/** The clients of schema `auth`. */
export class ClientStore {
  /** On the pool, or on a transaction's client (`Pool['query']` either way) to change clients with an audit record. */
  constructor(private readonly pool: Pick<Pool, 'query'>) {}

  async find(id: string): Promise<ClientRecord | undefined> {
    const result = await this.pool.query<ClientRow>(`SELECT ${COLUMNS} FROM auth.clients WHERE id = $1`, [id]);
    return result.rows[0] && toRecord(result.rows[0]);
  }

  async list(): Promise<ClientRecord[]> {
    const result = await this.pool.query<ClientRow>(`SELECT ${COLUMNS} FROM auth.clients ORDER BY created_at, id`);
    return result.rows.map(toRecord);
  }

  /** Inserts a client; false when the id is taken (nothing is changed then). */
  async create(client: NewClient): Promise<ClientRecord | undefined> {
    const result = await this.pool.query<ClientRow>(
      `INSERT INTO auth.clients (id, secret_hash, scopes, solutions, description)
       VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (id) DO NOTHING
       RETURNING ${COLUMNS}`,
      [client.id, client.secretHash, client.scopes, client.solutions, client.description],
    );
    return result.rows[0] && toRecord(result.rows[0]);
  }

  async delete(id: string): Promise<boolean> {
    const result = await this.pool.query('DELETE FROM auth.clients WHERE id = $1', [id]);
    return (result.rowCount ?? 0) > 0;
  }

  /** Replaces the secret hash; false when there is no such client. */
  async setSecretHash(id: string, secretHash: string): Promise<boolean> {
    const result = await this.pool.query('UPDATE auth.clients SET secret_hash = $2, updated_at = now() WHERE id = $1', [
      id,
      secretHash,
    ]);
    return (result.rowCount ?? 0) > 0;
  }

  /** Sets scopes and solutions; false when there is no such client. */
  async setGrants(id: string, scopes: readonly string[], solutions: readonly string[]): Promise<boolean> {
    const result = await this.pool.query(
      'UPDATE auth.clients SET scopes = $2, solutions = $3, updated_at = now() WHERE id = $1',
      [id, scopes, solutions],
    );
    return (result.rowCount ?? 0) > 0;
  }
}
