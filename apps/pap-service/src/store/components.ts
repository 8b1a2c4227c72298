import type { Component, ComponentType } from '@custos/contracts';
import type { Queryable } from './db';
import { solutionClause, type SolutionFilter } from './solutions';

/** Registers a component; re-registering the same id replaces it. */
export async function upsertComponent(db: Queryable, solution: string, component: Component): Promise<void> {
  await db.query(
    `INSERT INTO pap.components (id, solution, type, body) VALUES ($1, $2, $3, $4)
     ON CONFLICT (id) DO UPDATE SET solution = EXCLUDED.solution, type = EXCLUDED.type, body = EXCLUDED.body,
       updated_at = now()`,
    [component.id.identifier, solution, component.id.componentType, JSON.stringify(component)],
  );
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

export async function deleteComponent(db: Queryable, id: string): Promise<boolean> {
  const result = await db.query('DELETE FROM pap.components WHERE id = $1', [id]);
  return result.rowCount === 1;
}
