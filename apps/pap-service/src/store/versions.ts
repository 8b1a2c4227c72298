import type { Pool } from 'pg';
import { onlyRow } from '@custos/service-kit';
import type { Queryable } from './db';

/** Who stored a text: the token's client id and the request's id (null only for versions older than history). */
export interface Author {
  clientId: string | null;
  requestId: string | null;
}

/** One stored text of a document as read back, without the text. */
export interface VersionRow {
  number: number;
  client_id: string | null;
  request_id: string | null;
  created_at: Date;
}

/**
 * The history of one kind of document: its `versions` table (trusted constant, e.g. `pap.policy_versions`) beside
 * the document table `documents`. Writes happen inside the store's transactions, which hold the document's row
 * lock (or have just inserted it), so the next number of a document is never taken twice.
 */
export class VersionTable {
  constructor(
    private readonly documents: string,
    private readonly versions: string,
  ) {}

  /** Stores `xml` as the document's next version; its number. */
  async record(db: Queryable, id: string, xml: string, author: Author): Promise<number> {
    const result = await db.query<{ number: number }>(
      `INSERT INTO ${this.versions} (id, number, xml, client_id, request_id)
       SELECT $1, COALESCE(MAX(number), 0) + 1, $2, $3, $4 FROM ${this.versions} WHERE id = $1
       RETURNING number`,
      [id, xml, author.clientId, author.requestId],
    );
    return onlyRow(result, 'record a version').number;
  }

  /** The versions of a document, oldest first, and whether it is deployed; undefined when there is no such document. */
  async list(pool: Pool, id: string): Promise<{ deployed: boolean; versions: VersionRow[] } | undefined> {
    const result = await pool.query<VersionRow & { deployed: boolean }>(
      `SELECT v.number, v.client_id, v.request_id, v.created_at, d.deployed
         FROM ${this.documents} d JOIN ${this.versions} v ON v.id = d.id
        WHERE d.id = $1 ORDER BY v.number`,
      [id],
    );
    const [first] = result.rows;
    if (first === undefined) return undefined;
    return { deployed: first.deployed, versions: result.rows.map(({ deployed: _, ...row }) => row) };
  }

  /** One version with its text; undefined when the document or the version does not exist. */
  async find(pool: Pool, id: string, number: number): Promise<(VersionRow & { xml: string }) | undefined> {
    const result = await pool.query<VersionRow & { xml: string }>(
      `SELECT number, client_id, request_id, created_at, xml FROM ${this.versions} WHERE id = $1 AND number = $2`,
      [id, number],
    );
    return result.rows[0];
  }
}
