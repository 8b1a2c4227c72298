import type { Pool } from 'pg';
import type { DeployedPolicy, OutgoingSnapshot, PolicySnapshot, StoredDocument } from '@custos/contracts';
import { withTransaction } from '@custos/service-kit';
import { POLICY_TREE } from '../documents/policy-tree';
import { listPropagatedComponents } from '../store/components';
import { toNumber, type Queryable } from '../store/db';
import { listSettings } from '../store/settings';
import { deployedWith, type DocumentTree } from '../store/documents';

/** Trees computed for a snapshot are written back this many rows per statement. */
const WRITE_BACK_BATCH = 500;

/**
 * Everything the pdps decide with at one revision, read in one REPEATABLE READ snapshot so all parts agree:
 * deployed policies and deployed timers (one list, by id; `urn:policy:` sorts before `urn:timer:`), the PIP and
 * PXP components, and the solutions' settings (contracts/nats.ts). Policies travel with their compiled tree; a policy
 * stored without a current one gets it computed here and written back, so the next snapshot finds it.
 *
 * Trees are read as the JSON text PostgreSQL writes (`tree::text`) and go onto the wire as that text: parsing 10,000
 * trees here and stringifying them again was most of pap's time per snapshot (issue 26). Only each tree's `version`
 * is read as a value, to tell whether this engine can ship it. With `ids`, only those documents (and the components
 * and settings as always): what a pdp asks for to explain a decision.
 */
export async function readStoredSnapshot(pool: Pool, trees: DocumentTree = POLICY_TREE, ids?: readonly string[]): Promise<OutgoingSnapshot> {
  const computed: ComputedTree[] = [];
  const snapshot = await withTransaction(
    pool,
    async (client) => {
      const revision = await readRevision(client);
      const policies = await readDocuments(client, trees, ids, computed);
      return { revision, policies, ...(await readExtras(client)) };
    },
    { isolation: 'REPEATABLE READ', readOnly: true },
  );
  await writeBack(pool, computed);
  return snapshot;
}

/** A tree computed while reading a snapshot, to be written back. */
export interface ComputedTree {
  id: string;
  xml: string;
  tree: Record<string, unknown>;
}

/**
 * Inside the caller's transaction: the deployed documents (or those of `ids`), by id in byte order, each policy with
 * its tree as stored text, or computed now (and added to `computed`) when the stored one is missing or outdated.
 */
export async function readDocuments(
  client: Queryable,
  trees: DocumentTree,
  ids: readonly string[] | undefined,
  computed: ComputedTree[],
): Promise<Array<DeployedPolicy | StoredDocument>> {
  const rows = await client.query<{ id: string; xml: string; tree: string | null; version: unknown; deployed_at: string | null; policy: boolean }>(
    `SELECT id, xml, tree, version, deployed_at, policy FROM (
       SELECT id, xml, tree::text AS tree, tree->'version' AS version, deployed_at, true AS policy FROM pap.policies
        WHERE deployed AND ($1::text[] IS NULL OR id = ANY($1))
       UNION ALL
       SELECT id, xml, NULL, NULL, NULL, false FROM pap.timers WHERE deployed AND ($1::text[] IS NULL OR id = ANY($1))
     ) deployed ORDER BY id COLLATE "C"`,
    [ids ?? null],
  );
  return rows.rows.map(({ id, xml, tree, version, deployed_at, policy }): DeployedPolicy | StoredDocument => {
    if (!policy) return { id, xml };
    const deployedAt = deployed_at === null ? undefined : toNumber(deployed_at);
    if (tree !== null && trees.isCurrent({ version })) return { id, xml, treeJson: tree, ...(deployedAt === undefined ? {} : { deployedAt }) };
    const fresh = trees.compute(xml);
    if (fresh !== null) computed.push({ id, xml, tree: fresh });
    return deployedWith(id, xml, fresh, deployedAt);
  });
}

/** Inside the caller's transaction: the components and the settings a snapshot carries (without settings: none). */
export async function readExtras(client: Queryable): Promise<Pick<OutgoingSnapshot, 'components' | 'settings'>> {
  const components = await listPropagatedComponents(client);
  const settings = await listSettings(client);
  // Without settings the snapshot is what it was before solutions had any.
  return { components, ...(settings.length === 0 ? {} : { settings }) };
}

/** `readStoredSnapshot` with every tree as a value: the snapshot a pdp reads off the wire. */
export async function readSnapshot(pool: Pool, trees: DocumentTree = POLICY_TREE): Promise<PolicySnapshot> {
  const stored = await readStoredSnapshot(pool, trees);
  const policies = stored.policies.map((document): DeployedPolicy => {
    if (!('treeJson' in document)) return document;
    const { treeJson, ...rest } = document;
    return treeJson === undefined ? rest : { ...rest, tree: JSON.parse(treeJson) as Record<string, unknown> };
  });
  return { ...stored, policies };
}

/** The revision of the deployed set now (one row; no snapshot transaction needed for one value). */
export async function readRevision(db: Queryable): Promise<number> {
  const state = await db.query<{ revision: string }>('SELECT revision FROM pap.state');
  const revision = state.rows[0]?.revision;
  if (revision === undefined) throw new Error('pap.state holds no revision');
  return toNumber(revision);
}

/** Stores computed trees, unless the policy's XML changed in the meantime (its new tree came with it). */
export async function writeBack(pool: Pool, computed: readonly ComputedTree[]): Promise<void> {
  for (let start = 0; start < computed.length; start += WRITE_BACK_BATCH) {
    const batch = computed.slice(start, start + WRITE_BACK_BATCH);
    await pool.query(
      `UPDATE pap.policies AS p SET tree = t.tree
         FROM unnest($1::text[], $2::text[], $3::jsonb[]) AS t(id, xml, tree)
        WHERE p.id = t.id AND p.xml = t.xml`,
      [batch.map((row) => row.id), batch.map((row) => row.xml), batch.map((row) => JSON.stringify(row.tree))],
    );
  }
}
