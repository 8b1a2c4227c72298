import type { Pool } from 'pg';
import type { Policy, PolicyId } from '@custos/contracts';
import { withTransaction, type Queryable } from './db';
import { currentRevision, recordChange } from './revisions';
import { solutionClause, type SolutionFilter } from './solutions';

export interface PolicyRow {
  id: string;
  solution: string;
  name: string | null;
  description: string | null;
  xml: string;
  deployed: boolean;
  created_at: Date;
  updated_at: Date;
}

/** What is stored of a policy that passed validation. */
export interface PolicyRecord {
  id: string;
  solution: string;
  name: string | null;
  description: string | null;
  xml: string;
}

/** The outcome of a call on the deployed set: the answer and the revision it took effect at. */
export interface DeployedSetOutcome {
  result: boolean;
  /** The new revision when the deployed set changed, else the current one. */
  revision: number;
  changed: boolean;
}

const COLUMNS = 'id, solution, name, description, xml, deployed, created_at, updated_at';

export function toPolicy(row: PolicyRow): Policy {
  return {
    id: { identifier: row.id },
    name: row.name,
    description: row.description,
    deployed: row.deployed,
    xml: row.xml,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

export async function findPolicy(db: Queryable, id: string): Promise<PolicyRow | undefined> {
  const result = await db.query<PolicyRow>(`SELECT ${COLUMNS} FROM pap.policies WHERE id = $1`, [id]);
  return result.rows[0];
}

/** Policies of the visible solutions, by id (code point order). */
export async function listPolicies(db: Queryable, filter: SolutionFilter, deployedOnly: boolean): Promise<PolicyRow[]> {
  const where = solutionClause(filter, 'solution', 1);
  const result = await db.query<PolicyRow>(
    `SELECT ${COLUMNS} FROM pap.policies WHERE ${where.sql}${deployedOnly ? ' AND deployed' : ''} ORDER BY id COLLATE "C"`,
    where.params,
  );
  return result.rows;
}

export async function listPolicyIds(db: Queryable, filter: SolutionFilter, deployedOnly: boolean): Promise<PolicyId[]> {
  const where = solutionClause(filter, 'solution', 1);
  const result = await db.query<{ id: string }>(
    `SELECT id FROM pap.policies WHERE ${where.sql}${deployedOnly ? ' AND deployed' : ''} ORDER BY id COLLATE "C"`,
    where.params,
  );
  return result.rows.map((row) => ({ identifier: row.id }));
}

/** Stores a new, undeployed policy; false when the id is taken. */
export async function insertPolicy(db: Queryable, policy: PolicyRecord): Promise<boolean> {
  const result = await db.query(
    `INSERT INTO pap.policies (id, solution, name, description, xml) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (id) DO NOTHING`,
    [policy.id, policy.solution, policy.name, policy.description, policy.xml],
  );
  return result.rowCount === 1;
}

/**
 * Replaces the text of an existing policy. A deployed policy is re-deployed in the same
 * transaction (new revision, outbox row), so replicas switch from the old to the new text at once.
 */
export async function replacePolicy(
  pool: Pool,
  policy: PolicyRecord,
): Promise<{ found: false } | { found: true; deployed: boolean; revision: number | undefined }> {
  return withTransaction(pool, async (client) => {
    const existing = await client.query<{ deployed: boolean }>(
      'SELECT deployed FROM pap.policies WHERE id = $1 FOR UPDATE',
      [policy.id],
    );
    const row = existing.rows[0];
    if (!row) return { found: false } as const;
    await client.query(
      `UPDATE pap.policies SET name = $2, description = $3, xml = $4, updated_at = now() WHERE id = $1`,
      [policy.id, policy.name, policy.description, policy.xml],
    );
    const revision = row.deployed
      ? await recordChange(client, { type: 'deploy', policy: { id: policy.id, xml: policy.xml } })
      : undefined;
    return { found: true, deployed: row.deployed, revision } as const;
  });
}

/** true when the policy is deployed after the call (idempotent); false when there is no such policy. */
export function deployPolicy(pool: Pool, id: string): Promise<DeployedSetOutcome> {
  return withTransaction(pool, async (client) => {
    const existing = await client.query<{ deployed: boolean; xml: string }>(
      'SELECT deployed, xml FROM pap.policies WHERE id = $1 FOR UPDATE',
      [id],
    );
    const row = existing.rows[0];
    if (!row || row.deployed) return { result: row !== undefined, revision: await currentRevision(client), changed: false };
    await client.query('UPDATE pap.policies SET deployed = true, updated_at = now() WHERE id = $1', [id]);
    const revision = await recordChange(client, { type: 'deploy', policy: { id, xml: row.xml } });
    return { result: true, revision, changed: true };
  });
}

/** true when the policy was deployed and is not any more. */
export function revokePolicy(pool: Pool, id: string): Promise<DeployedSetOutcome> {
  return withTransaction(pool, async (client) => {
    const existing = await client.query<{ deployed: boolean }>(
      'SELECT deployed FROM pap.policies WHERE id = $1 FOR UPDATE',
      [id],
    );
    if (!existing.rows[0]?.deployed) return { result: false, revision: await currentRevision(client), changed: false };
    await client.query('UPDATE pap.policies SET deployed = false, updated_at = now() WHERE id = $1', [id]);
    const revision = await recordChange(client, { type: 'revoke', policyId: id });
    return { result: true, revision, changed: true };
  });
}

/** true when the policy existed and is gone; a deployed one is revoked in the same transaction. */
export function removePolicy(pool: Pool, id: string): Promise<DeployedSetOutcome> {
  return withTransaction(pool, async (client) => {
    const removed = await client.query<{ deployed: boolean }>('DELETE FROM pap.policies WHERE id = $1 RETURNING deployed', [id]);
    const row = removed.rows[0];
    if (!row) return { result: false, revision: await currentRevision(client), changed: false };
    if (!row.deployed) return { result: true, revision: await currentRevision(client), changed: false };
    const revision = await recordChange(client, { type: 'revoke', policyId: id });
    return { result: true, revision, changed: true };
  });
}

export async function policyStatus(db: Queryable, id: string): Promise<boolean> {
  const result = await db.query<{ deployed: boolean }>('SELECT deployed FROM pap.policies WHERE id = $1', [id]);
  return result.rows[0]?.deployed ?? false;
}
