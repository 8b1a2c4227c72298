import type { Pool } from 'pg';
import type { TimerId, TimerResource } from '@custos/contracts';
import { withTransaction, type Queryable } from './db';
import type { DeployedSetOutcome } from './policies';
import { currentRevision, recordChange } from './revisions';
import { solutionClause, type SolutionFilter } from './solutions';

/**
 * Timers (policy-language.md §10), stored and deployed exactly like policies: every change of the deployed timers
 * takes the next revision of the one counter and an outbox row, and travels as a `deploy`/`revoke` PolicyChange whose
 * id is the `urn:timer:` id.
 */
export interface TimerRow {
  id: string;
  solution: string;
  description: string | null;
  cron: string;
  xml: string;
  deployed: boolean;
  created_at: Date;
  updated_at: Date;
}

export interface TimerRecord {
  id: string;
  solution: string;
  description: string | null;
  cron: string;
  xml: string;
}

const COLUMNS = 'id, solution, description, cron, xml, deployed, created_at, updated_at';

export function toTimer(row: TimerRow): TimerResource {
  return {
    id: { identifier: row.id },
    description: row.description,
    cron: row.cron,
    deployed: row.deployed,
    xml: row.xml,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

export async function findTimer(db: Queryable, id: string): Promise<TimerRow | undefined> {
  const result = await db.query<TimerRow>(`SELECT ${COLUMNS} FROM pap.timers WHERE id = $1`, [id]);
  return result.rows[0];
}

export async function listTimerIds(db: Queryable, filter: SolutionFilter, deployedOnly: boolean): Promise<TimerId[]> {
  const where = solutionClause(filter, 'solution', 1);
  const result = await db.query<{ id: string }>(
    `SELECT id FROM pap.timers WHERE ${where.sql}${deployedOnly ? ' AND deployed' : ''} ORDER BY id COLLATE "C"`,
    where.params,
  );
  return result.rows.map((row) => ({ identifier: row.id }));
}

/** Stores a new, undeployed timer; false when the id is taken. */
export async function insertTimer(db: Queryable, timer: TimerRecord): Promise<boolean> {
  const result = await db.query(
    `INSERT INTO pap.timers (id, solution, description, cron, xml) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (id) DO NOTHING`,
    [timer.id, timer.solution, timer.description, timer.cron, timer.xml],
  );
  return result.rowCount === 1;
}

/** Replaces an existing timer; a deployed one is re-deployed in the same transaction (new revision). */
export function replaceTimer(
  pool: Pool,
  timer: TimerRecord,
): Promise<{ found: false } | { found: true; deployed: boolean; revision: number | undefined }> {
  return withTransaction(pool, async (client) => {
    const existing = await client.query<{ deployed: boolean }>('SELECT deployed FROM pap.timers WHERE id = $1 FOR UPDATE', [timer.id]);
    const row = existing.rows[0];
    if (!row) return { found: false } as const;
    await client.query(`UPDATE pap.timers SET description = $2, cron = $3, xml = $4, updated_at = now() WHERE id = $1`, [
      timer.id,
      timer.description,
      timer.cron,
      timer.xml,
    ]);
    const revision = row.deployed ? await recordChange(client, { type: 'deploy', policy: { id: timer.id, xml: timer.xml } }) : undefined;
    return { found: true, deployed: row.deployed, revision } as const;
  });
}

/** true when the timer is deployed after the call (idempotent); false when there is no such timer. */
export function deployTimer(pool: Pool, id: string): Promise<DeployedSetOutcome> {
  return withTransaction(pool, async (client) => {
    const existing = await client.query<{ deployed: boolean; xml: string }>('SELECT deployed, xml FROM pap.timers WHERE id = $1 FOR UPDATE', [id]);
    const row = existing.rows[0];
    if (!row || row.deployed) return { result: row !== undefined, revision: await currentRevision(client), changed: false };
    await client.query('UPDATE pap.timers SET deployed = true, updated_at = now() WHERE id = $1', [id]);
    const revision = await recordChange(client, { type: 'deploy', policy: { id, xml: row.xml } });
    return { result: true, revision, changed: true };
  });
}

/** true when the timer was deployed and is not any more. */
export function revokeTimer(pool: Pool, id: string): Promise<DeployedSetOutcome> {
  return withTransaction(pool, async (client) => {
    const existing = await client.query<{ deployed: boolean }>('SELECT deployed FROM pap.timers WHERE id = $1 FOR UPDATE', [id]);
    if (!existing.rows[0]?.deployed) return { result: false, revision: await currentRevision(client), changed: false };
    await client.query('UPDATE pap.timers SET deployed = false, updated_at = now() WHERE id = $1', [id]);
    const revision = await recordChange(client, { type: 'revoke', policyId: id });
    return { result: true, revision, changed: true };
  });
}

/** true when the timer existed and is gone; a deployed one is revoked in the same transaction. */
export function removeTimer(pool: Pool, id: string): Promise<DeployedSetOutcome> {
  return withTransaction(pool, async (client) => {
    const removed = await client.query<{ deployed: boolean }>('DELETE FROM pap.timers WHERE id = $1 RETURNING deployed', [id]);
    const row = removed.rows[0];
    if (!row) return { result: false, revision: await currentRevision(client), changed: false };
    if (!row.deployed) return { result: true, revision: await currentRevision(client), changed: false };
    const revision = await recordChange(client, { type: 'revoke', policyId: id });
    return { result: true, revision, changed: true };
  });
}

export async function timerStatus(db: Queryable, id: string): Promise<boolean> {
  const result = await db.query<{ deployed: boolean }>('SELECT deployed FROM pap.timers WHERE id = $1', [id]);
  return result.rows[0]?.deployed ?? false;
}
