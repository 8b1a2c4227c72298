import type { Pool } from 'pg';
import { Gauge, type Logger, type Registry } from '@custos/service-kit';
import { readStats, type PapStats } from './store/stats';

/**
 * Gauges read from the database at scrape time. One query serves all four gauges of a scrape;
 * when the database is unreachable the gauges read NaN (unknown) rather than failing /metrics.
 */
export function registerPapGauges(registry: Registry, pool: Pool, logger: Logger): void {
  let pending: Promise<PapStats | undefined> | undefined;
  const stats = () => {
    pending ??= readStats(pool)
      .catch((error: unknown) => {
        logger.warn({ err: error }, 'metrics could not read the database');
        return undefined;
      })
      .finally(() => setImmediate(() => (pending = undefined)));
    return pending;
  };
  const gauge = (name: string, help: string, pick: (s: PapStats) => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      async collect() {
        const current = await stats();
        this.set(current ? pick(current) : Number.NaN);
      },
    });
  gauge('pap_policies', 'Policies stored', (s) => s.policies);
  gauge('pap_policies_deployed', 'Policies deployed', (s) => s.deployed);
  gauge('pap_policy_revision', 'Current revision of the deployed set', (s) => s.revision);
  gauge('pap_outbox_backlog', 'Changes in the outbox not yet acknowledged by NATS', (s) => s.outboxBacklog);
}
