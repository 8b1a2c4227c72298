import type { Pool } from 'pg';
import type { PolicySnapshot } from '@custos/contracts';
import { listPropagatedComponents } from '../store/components';
import { toNumber, withTransaction } from '../store/db';

/**
 * Everything the pdps decide with at one revision, read in one REPEATABLE READ snapshot so all parts agree:
 * deployed policies and deployed timers (one list, by id; `urn:policy:` sorts before `urn:timer:`) and the PIP and
 * PXP components (contracts/nats.ts).
 */
export function readSnapshot(pool: Pool): Promise<PolicySnapshot> {
  return withTransaction(
    pool,
    async (client) => {
      const state = await client.query<{ revision: string }>('SELECT revision FROM pap.state');
      const policies = await client.query<{ id: string; xml: string }>(
        `SELECT id, xml FROM (
           SELECT id, xml FROM pap.policies WHERE deployed
           UNION ALL
           SELECT id, xml FROM pap.timers WHERE deployed
         ) deployed ORDER BY id COLLATE "C"`,
      );
      const components = await listPropagatedComponents(client);
      const revision = state.rows[0]?.revision;
      if (revision === undefined) throw new Error('pap.state holds no revision');
      return {
        revision: toNumber(revision),
        policies: policies.rows.map(({ id, xml }) => ({ id, xml })),
        components,
      };
    },
    { isolation: 'REPEATABLE READ', readOnly: true },
  );
}
