import type { Pool, PoolClient } from 'pg';
import type { DeployedPolicy } from '@custos/contracts';
import { withTransaction } from '@custos/service-kit';
import { toNumber, withChangeTransaction, workThenHook, type ChangeHook } from './db';
import { currentRevision, recordChange } from './revisions';
import { solutionClause, type SolutionFilter } from './solutions';
import { VersionTable, type Author, type VersionRow } from './versions';

/** The columns a kind of document keeps beside its id, solution, XML, deployed flag and times. */
export type DocumentMetadata = Record<string, string | null>;

/** Where one kind of document lives. Trusted constants only: they are written into the SQL as they are. */
export interface DocumentTable<M extends DocumentMetadata> {
  /** Schema-qualified, e.g. `pap.policies`. */
  readonly name: string;
  /** Schema-qualified: every text the documents were stored with, numbered (store/versions.ts). */
  readonly versions: string;
  readonly metadata: readonly (keyof M & string)[];
  /** For a table with a `tree` column (policies): the compiled tree shipped beside the XML. */
  readonly tree?: DocumentTree;
  /**
   * The table has a `deployed_at` column (policies): the revision at which the current deployment began, set on
   * the not deployed → deployed change, kept by a replace while deployed, cleared on revoke, shipped as `deployedAt`.
   */
  readonly tracksDeployment?: boolean;
}

/** How the compiled tree of a kind of document is judged and made. */
export interface DocumentTree {
  /** Whether a stored tree can be shipped as it is (its format is this engine's). */
  isCurrent(tree: unknown): boolean;
  /** The tree of checked XML; null when the XML no longer passes (it then travels alone). */
  compute(xml: string): Record<string, unknown> | null;
}

/** What is stored of a document that passed validation; `tree` for kinds whose table keeps one. */
export type DocumentRecord<M extends DocumentMetadata> = { id: string; solution: string; xml: string; tree?: Record<string, unknown> } & M;

/** A stored document as read back. */
export type DocumentRow<M extends DocumentMetadata> = DocumentRecord<M> & {
  deployed: boolean;
  created_at: Date;
  updated_at: Date;
};

/** The outcome of a call on the deployed set: the answer and the revision it took effect at. */
export interface DeployedSetOutcome {
  result: boolean;
  /** The new revision when the deployed set changed, else the current one. */
  revision: number;
  changed: boolean;
}

/** A replaced document that is deployed is re-deployed: then `revision` is the new revision. */
export type ReplaceOutcome = { found: false; changed: false } | { found: true; changed: boolean; revision: number | undefined };

/** A restored version: the new version carrying its text, whether deployed now, and the revision after it. */
export type RestoreOutcome = { found: false; changed: false } | { found: true; changed: boolean; version: number; deployed: boolean; revision: number };

/**
 * Policies and timers, stored and deployed alike: every change of the deployed ones takes the next revision of the
 * one counter and an outbox row in the same transaction, and travels as a `deploy`/`revoke` PolicyChange whose id
 * tells the kind. After a commit that wrote an outbox row the store calls `onChange` itself, so the publisher in
 * this process sends the change at once; no caller has to remember to.
 */
export class DocumentStore<M extends DocumentMetadata> {
  private readonly columns: string;
  private readonly history: VersionTable;

  constructor(
    private readonly pool: Pool,
    private readonly table: DocumentTable<M>,
    private readonly onChange: () => void,
  ) {
    this.columns = ['id', 'solution', ...table.metadata, 'xml', 'deployed', 'created_at', 'updated_at'].join(', ');
    this.history = new VersionTable(table.name, table.versions);
  }

  async find(id: string): Promise<DocumentRow<M> | undefined> {
    const result = await this.pool.query<DocumentRow<M>>(`SELECT ${this.columns} FROM ${this.table.name} WHERE id = $1`, [id]);
    return result.rows[0];
  }

  /** Documents of the visible solutions, by id (code point order). */
  async list(filter: SolutionFilter, deployedOnly: boolean): Promise<DocumentRow<M>[]> {
    const where = this.visible(filter, deployedOnly);
    const result = await this.pool.query<DocumentRow<M>>(
      `SELECT ${this.columns} FROM ${this.table.name} WHERE ${where.sql} ORDER BY id COLLATE "C"`,
      where.params,
    );
    return result.rows;
  }

  async listIds(filter: SolutionFilter, deployedOnly: boolean): Promise<{ identifier: string }[]> {
    const where = this.visible(filter, deployedOnly);
    const result = await this.pool.query<{ id: string }>(
      `SELECT id FROM ${this.table.name} WHERE ${where.sql} ORDER BY id COLLATE "C"`,
      where.params,
    );
    return result.rows.map((row) => ({ identifier: row.id }));
  }

  /** The versions of a document, oldest first, and whether it is deployed; undefined when there is no such document. */
  versions(id: string): Promise<{ deployed: boolean; versions: VersionRow[] } | undefined> {
    return this.history.list(this.pool, id);
  }

  /** One version of a document with its text; undefined when the document or the version does not exist. */
  version(id: string, number: number): Promise<(VersionRow & { xml: string }) | undefined> {
    return this.history.find(this.pool, id, number);
  }

  /** Stores a new, undeployed document as its version 1; false when the id is taken. */
  insert(record: DocumentRecord<M>, author: Author, hook?: ChangeHook<boolean>): Promise<boolean> {
    return withTransaction(this.pool, (client) => workThenHook(client, (tx) => this.insertIn(tx, record, author), hook));
  }

  /** `insert` inside the caller's transaction. */
  async insertIn(client: PoolClient, record: DocumentRecord<M>, author: Author): Promise<boolean> {
    const columns = ['id', 'solution', ...this.table.metadata, 'xml', ...this.treeColumn()];
    const values = [record.id, record.solution, ...this.table.metadata.map((column) => record[column]), record.xml, ...this.treeValue(record)];
    const result = await client.query(
      `INSERT INTO ${this.table.name} (${columns.join(', ')}) VALUES (${placeholders(values.length, 1)})
       ON CONFLICT (id) DO NOTHING`,
      values,
    );
    if (result.rowCount !== 1) return false;
    await this.history.record(client, record.id, record.xml, author);
    return true;
  }

  /**
   * Replaces the text of an existing document. A deployed one is re-deployed in the same transaction (new revision,
   * outbox row), so replicas switch from the old to the new text at once.
   */
  replace(record: DocumentRecord<M>, author: Author, hook?: ChangeHook<ReplaceOutcome>): Promise<ReplaceOutcome> {
    return this.commit(hook, async (client) => {
      const step = await this.replaceIn(client, record, author);
      if (step === undefined) return { found: false, changed: false } as const;
      if (step.deployed === undefined) return { found: true, changed: false, revision: undefined } as const;
      const revision = await recordChange(client, { type: 'deploy', policy: step.deployed });
      return { found: true, changed: true, revision } as const;
    });
  }

  /**
   * Makes the text of an earlier version (`record`, validated again) current as a new version and, with `deploy`,
   * deploys the document: one transaction, and at most one revision for both.
   */
  restore(record: DocumentRecord<M>, deploy: boolean, author: Author, hook?: ChangeHook<RestoreOutcome>): Promise<RestoreOutcome> {
    return this.commit(hook, async (client) => {
      const step = await this.replaceIn(client, record, author);
      if (step === undefined) return { found: false, changed: false } as const;
      const { version } = step;
      let travelling = step.deployed;
      let newDeployment = false;
      if (travelling === undefined && deploy) {
        travelling = (await this.deployIn(client, record.id))?.deployed;
        newDeployment = travelling !== undefined;
      }
      if (travelling === undefined) return { found: true, changed: false, version, deployed: false, revision: await currentRevision(client) } as const;
      const policy = travelling;
      if (!newDeployment || !this.table.tracksDeployment) {
        return { found: true, changed: true, version, deployed: true, revision: await recordChange(client, { type: 'deploy', policy }) } as const;
      }
      const revision = await recordChange(client, (next) => ({ type: 'deploy', policy: { ...policy, deployedAt: next } }));
      await this.beginDeploymentIn(client, record.id, revision);
      return { found: true, changed: true, version, deployed: true, revision } as const;
    });
  }

  /** true when the document is deployed after the call (idempotent); false when there is no such document. */
  deploy(id: string, hook?: ChangeHook<DeployedSetOutcome>): Promise<DeployedSetOutcome> {
    return this.commit(hook, async (client) => {
      const step = await this.deployIn(client, id);
      if (step === undefined || step.deployed === undefined) return { result: step !== undefined, revision: await currentRevision(client), changed: false };
      const document = step.deployed;
      if (!this.table.tracksDeployment) return { result: true, revision: await recordChange(client, { type: 'deploy', policy: document }), changed: true };
      // A new deployment: it begins at this deploy's own revision.
      const revision = await recordChange(client, (next) => ({ type: 'deploy', policy: { ...document, deployedAt: next } }));
      await this.beginDeploymentIn(client, id, revision);
      return { result: true, revision, changed: true };
    });
  }

  /** true when the document was deployed and is not any more. */
  revoke(id: string, hook?: ChangeHook<DeployedSetOutcome>): Promise<DeployedSetOutcome> {
    return this.commit(hook, async (client) => {
      if ((await this.revokeIn(client, id)) !== 'revoked') return { result: false, revision: await currentRevision(client), changed: false };
      const revision = await recordChange(client, { type: 'revoke', policyId: id });
      return { result: true, revision, changed: true };
    });
  }

  /** true when the document existed and is gone; a deployed one is revoked in the same transaction. */
  remove(id: string, hook?: ChangeHook<DeployedSetOutcome>): Promise<DeployedSetOutcome> {
    return this.commit(hook, async (client) => {
      const step = await this.removeIn(client, id);
      if (step !== 'deployed') return { result: step === 'removed', revision: await currentRevision(client), changed: false };
      const revision = await recordChange(client, { type: 'revoke', policyId: id });
      return { result: true, revision, changed: true };
    });
  }

  // The steps below run inside the caller's transaction and take no revision: the caller records the change, once
  // for a single operation or once for a whole change set (store/change-set.ts).

  /**
   * Replaces the text, kept as the document's next version; undefined when there is no such document. `deployed` is
   * the document as it now travels when it is deployed (it keeps its `deployedAt`: still the same deployment).
   */
  async replaceIn(
    client: PoolClient,
    record: DocumentRecord<M>,
    author: Author,
  ): Promise<{ deployed: DeployedPolicy | undefined; version: number } | undefined> {
    const existing = await client.query<{ deployed: boolean; deployed_at: string | null }>(
      `SELECT deployed, ${this.deployedAtColumn()} FROM ${this.table.name} WHERE id = $1 FOR UPDATE`,
      [record.id],
    );
    const row = existing.rows[0];
    if (!row) return undefined;
    const assignments = [...this.table.metadata, 'xml', ...this.treeColumn()].map((column, index) => `${column} = $${index + 2}`);
    await client.query(`UPDATE ${this.table.name} SET ${assignments.join(', ')}, updated_at = now() WHERE id = $1`, [
      record.id,
      ...this.table.metadata.map((column) => record[column]),
      record.xml,
      ...this.treeValue(record),
    ]);
    const version = await this.history.record(client, record.id, record.xml, author);
    if (!row.deployed) return { deployed: undefined, version };
    const deployedAt = row.deployed_at === null ? undefined : toNumber(row.deployed_at);
    return { deployed: deployedWith(record.id, record.xml, record.tree ?? null, deployedAt), version };
  }

  /**
   * Marks the document deployed; undefined when there is no such document. `deployed` is the document as it travels
   * when this deployed it (without `deployedAt`: the caller knows the revision), undefined when it already was.
   */
  async deployIn(client: PoolClient, id: string): Promise<{ deployed: DeployedPolicy | undefined } | undefined> {
    const existing = await client.query<{ deployed: boolean; xml: string; tree: unknown }>(
      `SELECT deployed, xml, ${this.table.tree ? 'tree' : 'NULL AS tree'} FROM ${this.table.name} WHERE id = $1 FOR UPDATE`,
      [id],
    );
    const row = existing.rows[0];
    if (!row) return undefined;
    if (row.deployed) return { deployed: undefined };
    const tree = this.currentTree(row.xml, row.tree);
    if (tree.computed) {
      // A row from before trees were stored (or of an older format) gets its tree now, once.
      await client.query(`UPDATE ${this.table.name} SET deployed = true, tree = $2, updated_at = now() WHERE id = $1`, [id, JSON.stringify(tree.tree)]);
    } else {
      await client.query(`UPDATE ${this.table.name} SET deployed = true, updated_at = now() WHERE id = $1`, [id]);
    }
    return { deployed: deployedWith(id, row.xml, tree.tree) };
  }

  /** Records the revision a new deployment began at (for tables that track it). */
  async beginDeploymentIn(client: PoolClient, id: string, revision: number): Promise<void> {
    if (this.table.tracksDeployment) await client.query(`UPDATE ${this.table.name} SET deployed_at = $2 WHERE id = $1`, [id, revision]);
  }

  /** Whether the table keeps the revision each deployment began at (`deployedAt` travels then). */
  get tracksDeployment(): boolean {
    return this.table.tracksDeployment === true;
  }

  /** `revoked` when the document was deployed and is not any more; `idle` when it was not deployed. */
  async revokeIn(client: PoolClient, id: string): Promise<'absent' | 'idle' | 'revoked'> {
    const existing = await client.query<{ deployed: boolean }>(`SELECT deployed FROM ${this.table.name} WHERE id = $1 FOR UPDATE`, [id]);
    const row = existing.rows[0];
    if (row === undefined) return 'absent';
    if (!row.deployed) return 'idle';
    const clearDeployment = this.table.tracksDeployment ? ', deployed_at = NULL' : '';
    await client.query(`UPDATE ${this.table.name} SET deployed = false${clearDeployment}, updated_at = now() WHERE id = $1`, [id]);
    return 'revoked';
  }

  /** Deletes the document: whether it was there, and deployed (then the caller records its revoke). */
  async removeIn(client: PoolClient, id: string): Promise<'absent' | 'removed' | 'deployed'> {
    const removed = await client.query<{ deployed: boolean }>(`DELETE FROM ${this.table.name} WHERE id = $1 RETURNING deployed`, [id]);
    const row = removed.rows[0];
    if (row === undefined) return 'absent';
    return row.deployed ? 'deployed' : 'removed';
  }

  async status(id: string): Promise<boolean> {
    const result = await this.pool.query<{ deployed: boolean }>(`SELECT deployed FROM ${this.table.name} WHERE id = $1`, [id]);
    return result.rows[0]?.deployed ?? false;
  }

  /** The stored tree when it can be shipped, else one computed from the XML (`computed`); null for kinds without. */
  private currentTree(xml: string, stored: unknown): { tree: Record<string, unknown> | null; computed: boolean } {
    const { tree } = this.table;
    if (tree === undefined) return { tree: null, computed: false };
    if (tree.isCurrent(stored)) return { tree: stored as Record<string, unknown>, computed: false };
    return { tree: tree.compute(xml), computed: true };
  }

  private deployedAtColumn(): string {
    return this.table.tracksDeployment ? 'deployed_at' : 'NULL AS deployed_at';
  }

  private treeColumn(): string[] {
    return this.table.tree ? ['tree'] : [];
  }

  private treeValue(record: DocumentRecord<M>): Array<string | null> {
    return this.table.tree ? [record.tree === undefined ? null : JSON.stringify(record.tree)] : [];
  }

  /** Runs `work` in one transaction and, once a change of the deployed set is committed, tells `onChange`. */
  private commit<T extends { changed: boolean }>(hook: ChangeHook<T> | undefined, work: (client: PoolClient) => Promise<T>): Promise<T> {
    return withChangeTransaction(this.pool, this.onChange, work, hook);
  }

  private visible(filter: SolutionFilter, deployedOnly: boolean): { sql: string; params: unknown[] } {
    const where = solutionClause(filter, 'solution', 1);
    return { sql: `${where.sql}${deployedOnly ? ' AND deployed' : ''}`, params: where.params };
  }
}

/** A deployed document as it travels: with its tree and the revision its deployment began at, when it has them. */
export const deployedWith = (id: string, xml: string, tree: Record<string, unknown> | null, deployedAt?: number): DeployedPolicy => ({
  id,
  xml,
  ...(tree === null ? {} : { tree }),
  ...(deployedAt === undefined ? {} : { deployedAt }),
});

/** `$first, $first+1, …`: `count` positional parameters. */
const placeholders = (count: number, first: number): string =>
  Array.from({ length: count }, (_, index) => `$${first + index}`).join(', ');
