import { policySubjects } from '@custos/contracts';
import { waitFor, type OwnNatsCluster, type OwnNatsServer, type OwnPostgresFailover } from '@custos/test-kit';
import type { OwnPostgres } from './postgres-cluster';
import { pick, type ServicePool, type Slot } from './services';

/** What a fault acts on: the run's services and whichever form of NATS and PostgreSQL it started. */
export interface FaultTargets {
  pool: ServicePool;
  pdps: Slot[];
  paps: Slot[];
  auth: Slot;
  prefix: string;
  nats?: OwnNatsServer;
  pg?: OwnPostgres;
  natsCluster?: OwnNatsCluster;
  pgFailover?: OwnPostgresFailover;
  log: (line: string) => void;
}

/** The kinds of fault of each form, each counted as it happens. */
export function faultCounts(cluster: boolean): Record<string, number> {
  return cluster
    ? { 'kill pdp': 0, 'kill pap': 0, 'kill nats stream leader': 0, 'fail over postgres': 0 }
    : { 'kill pdp': 0, 'kill pap': 0, 'restart nats': 0, 'restart postgres': 0 };
}

/** Injects one fault and returns once what it broke is back (the killed process, server or node running again). */
export async function inject(fault: string, targets: FaultTargets, faults: Record<string, number>): Promise<void> {
  const { pool, pdps, paps, auth, nats, pg, natsCluster, pgFailover, log } = targets;
  const started = Date.now();
  if (fault === 'kill pdp') await pool.restart(pick(pdps) ?? pdps[0] ?? auth);
  if (fault === 'kill pap') await pool.restart(pick(paps) ?? paps[0] ?? auth);
  if (fault === 'restart nats') {
    await nats?.stop();
    await nats?.start();
  }
  if (fault === 'restart postgres') {
    await pg?.crash();
    await pg?.start();
  }
  if (fault === 'kill nats stream leader' && natsCluster) {
    const stream = policySubjects(targets.prefix).stream;
    const leader = await natsCluster.streamLeader(stream);
    await leader.kill();
    const next = await natsCluster.streamLeader(stream, { not: leader.name });
    log(`nats: ${leader.name} killed, ${next.name} leads the stream`);
    await leader.start();
  }
  if (fault === 'fail over postgres' && pgFailover) {
    const failover = pgFailover;
    const primary = await failover.primary();
    await primary.kill();
    const promoted = await waitFor(
      async () => {
        const next = await failover.primary(1000).catch(() => undefined);
        return next !== undefined && next.name !== primary.name ? next : undefined;
      },
      { timeoutMs: 90_000, intervalMs: 200, what: 'the standby promoted' },
    );
    log(`postgres: ${primary.name} killed, ${promoted.name} promoted after ${Date.now() - started} ms`);
    // The old primary comes back as the new one's standby (the next failover needs one).
    await primary.start();
    await failover.settled(120_000);
  }
  faults[fault] = (faults[fault] ?? 0) + 1;
  log(`${fault}: back after ${Date.now() - started} ms`);
}
