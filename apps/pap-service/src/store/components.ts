import type { Pool } from 'pg';
import type { Component, ComponentType } from '@custos/contracts';
import { withChangeTransaction, type ChangeHook, type Queryable } from './db';
import { currentRevision, recordChange } from './revisions';
import { solutionClause, type SolutionFilter } from './solutions';

/** Component types the pdps call, which therefore travel with the deployed set (contracts/nats.ts). */
export const PROPAGATED_TYPES: readonly ComponentType[] = ['PIP', 'PXP'];

const propagated = (type: string): boolean => (PROPAGATED_TYPES as readonly string[]).includes(type);

/** The outcome of a registry change: the revision it took effect at (the current one when nothing changed). */
export interface RegistryOutcome {
  result: boolean;
  revision: number;
  changed: boolean;
}

/**
 * Registers a component; re-registering the same id replaces it. A PIP or PXP whose body is new or different is a
 * change of what the pdps decide with: it gets a revision and an outbox row in the same transaction, and `onChange`
 * is told after the commit.
 */
export function upsertComponent(
  pool: Pool,
  onChange: () => void,
  solution: string,
  component: Component,
  hook?: ChangeHook<RegistryOutcome>,
): Promise<RegistryOutcome> {
  return withChangeTransaction(pool, onChange, async (client) => {
    const body = JSON.stringify(component);
    const existing = await client.query<{ same: boolean }>(
      'SELECT body = $2::jsonb AS same FROM pap.components WHERE id = $1 FOR UPDATE',
      [component.id.identifier, body],
    );
    await client.query(
      `INSERT INTO pap.components (id, solution, type, body) VALUES ($1, $2, $3, $4)
       ON CONFLICT (id) DO UPDATE SET solution = EXCLUDED.solution, type = EXCLUDED.type, body = EXCLUDED.body,
         updated_at = now()`,
      [component.id.identifier, solution, component.id.componentType, body],
    );
    const unchanged = existing.rows[0]?.same === true;
    if (!propagated(component.id.componentType) || unchanged) {
      return { result: true, revision: await currentRevision(client), changed: false };
    }
    const revision = await recordChange(client, { type: 'component', component });
    return { result: true, revision, changed: true };
  }, hook);
}

export async function findComponent(db: Queryable, id: string): Promise<Component | undefined> {
  const result = await db.query<{ body: Component }>('SELECT body FROM pap.components WHERE id = $1', [id]);
  return result.rows[0]?.body;
}

export async function listComponents(
  db: Queryable,
  filter: SolutionFilter,
  type: ComponentType | undefined,
): Promise<Component[]> {
  const where = solutionClause(filter, 'solution', 1);
  const params = [...where.params];
  let sql = `SELECT body FROM pap.components WHERE ${where.sql}`;
  if (type !== undefined) {
    params.push(type);
    sql += ` AND type = $${params.length}`;
  }
  const result = await db.query<{ body: Component }>(`${sql} ORDER BY id COLLATE "C"`, params);
  return result.rows.map((row) => row.body);
}

/** The PIP and PXP components, by id: what a snapshot carries. */
export async function listPropagatedComponents(db: Queryable): Promise<Component[]> {
  const result = await db.query<{ body: Component }>(
    `SELECT body FROM pap.components WHERE type = ANY($1::text[]) ORDER BY id COLLATE "C"`,
    [PROPAGATED_TYPES],
  );
  return result.rows.map((row) => row.body);
}

/** `true` when it was registered and is gone; removing a PIP or PXP is a change with its own revision. */
export function deleteComponent(pool: Pool, onChange: () => void, id: string, hook?: ChangeHook<RegistryOutcome>): Promise<RegistryOutcome> {
  return withChangeTransaction(pool, onChange, async (client) => {
    const removed = await client.query<{ type: string }>('DELETE FROM pap.components WHERE id = $1 RETURNING type', [id]);
    const row = removed.rows[0];
    if (row === undefined || !propagated(row.type)) {
      return { result: row !== undefined, revision: await currentRevision(client), changed: false };
    }
    const revision = await recordChange(client, { type: 'unregister', componentId: id });
    return { result: true, revision, changed: true };
  }, hook);
}
