import type { Pool } from 'pg';
import type { DeployedPolicy, PolicySnapshot } from '@custos/contracts';
import { withTransaction } from '@custos/service-kit';
import { POLICY_TREE } from '../documents/policy-tree';
import { listPropagatedComponents } from '../store/components';
import { toNumber } from '../store/db';
import { listSettings } from '../store/settings';
import { deployedWith, type DocumentTree } from '../store/documents';

/** Trees computed for a snapshot are written back this many rows per statement. */
const WRITE_BACK_BATCH = 500;

/**
 * Everything the pdps decide with at one revision, read in one REPEATABLE READ snapshot so all parts agree:
 * deployed policies and deployed timers (one list, by id; `urn:policy:` sorts before `urn:timer:`), the PIP and
 * PXP components, and the solutions' settings (contracts/nats.ts). Policies travel with their compiled tree; a policy
 * stored without a current one gets it computed here and written back, so the next snapshot finds it.
 */
export async function readSnapshot(pool: Pool, trees: DocumentTree = POLICY_TREE): Promise<PolicySnapshot> {
  const computed: Array<{ id: string; xml: string; tree: Record<string, unknown> }> = [];
  const snapshot = await withTransaction(
    pool,
    async (client) => {
      const state = await client.query<{ revision: string }>('SELECT revision FROM pap.state');
      const rows = await client.query<{ id: string; xml: string; tree: unknown; deployed_at: string | null; policy: boolean }>(
        `SELECT id, xml, tree, deployed_at, policy FROM (
           SELECT id, xml, tree, deployed_at, true AS policy FROM pap.policies WHERE deployed
           UNION ALL
           SELECT id, xml, NULL, NULL, false FROM pap.timers WHERE deployed
         ) deployed ORDER BY id COLLATE "C"`,
      );
      const components = await listPropagatedComponents(client);
      const settings = await listSettings(client);
      const revision = state.rows[0]?.revision;
      if (revision === undefined) throw new Error('pap.state holds no revision');
      const policies = rows.rows.map(({ id, xml, tree, deployed_at, policy }): DeployedPolicy => {
        if (!policy) return { id, xml };
        const deployedAt = deployed_at === null ? undefined : toNumber(deployed_at);
        if (trees.isCurrent(tree)) return deployedWith(id, xml, tree as Record<string, unknown>, deployedAt);
        const fresh = trees.compute(xml);
        if (fresh !== null) computed.push({ id, xml, tree: fresh });
        return deployedWith(id, xml, fresh, deployedAt);
      });
      // Without settings the snapshot is what it was before solutions had any.
      return { revision: toNumber(revision), policies, components, ...(settings.length === 0 ? {} : { settings }) };
    },
    { isolation: 'REPEATABLE READ', readOnly: true },
  );
  await writeBack(pool, computed);
  return snapshot;
}

/** Stores computed trees, unless the policy's XML changed in the meantime (its new tree came with it). */
async function writeBack(pool: Pool, computed: ReadonlyArray<{ id: string; xml: string; tree: Record<string, unknown> }>): Promise<void> {
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
