import { onlyRow } from '@custos/service-kit';
import { toNumber, type Queryable } from './db';

export interface PapStats {
  policies: number;
  deployed: number;
  revision: number;
  outboxBacklog: number;
}

/** Counts for metrics and readiness, in one round trip. */
export async function readStats(db: Queryable): Promise<PapStats> {
  const result = await db.query<{ policies: string; deployed: string; revision: string; backlog: string }>(
    `SELECT (SELECT count(*) FROM pap.policies) AS policies,
            (SELECT count(*) FROM pap.policies WHERE deployed) AS deployed,
            (SELECT revision FROM pap.state) AS revision,
            (SELECT count(*) FROM pap.outbox WHERE published_at IS NULL) AS backlog`,
  );
  const row = onlyRow(result, 'read the stats');
  return {
    policies: toNumber(row.policies),
    deployed: toNumber(row.deployed),
    revision: toNumber(row.revision),
    outboxBacklog: toNumber(row.backlog),
  };
}
