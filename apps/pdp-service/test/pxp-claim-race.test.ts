import { waitFor } from '@custos/test-kit';
import { CallTargets } from '../src/calls/http-json';
import { ComponentRegistry } from '../src/components/registry';
import { PgExecutionStore, type NewExecution } from '../src/pxp/execution-store';
import { PxpGateway } from '../src/pxp/gateway';
import { TestEndpoint } from './support/endpoints';
import { memoryLogger } from './support/logger';
import { component } from './support/pdp';
import { usePdp } from './support/use-pdp';

/**
 * A replica's own poll can claim an execute between its insert and the start of its delivery: the lease the insert
 * took ran out before the replica got to run (a loaded machine), so the row looks abandoned. It must then be
 * delivered once by this replica, not once by the poll and once more by the insert's own start.
 */
const ACTION = 'urn:action:acme:notify';
const LEASE_MS = 500;

/** A store whose insert returns only after `afterInsert` ran: the poll that came in between, made certain. */
class StallingStore extends PgExecutionStore {
  afterInsert: (() => Promise<unknown>) | undefined;

  override async insert(rows: readonly NewExecution[], attempts: number, now: number, leaseMs: number): Promise<void> {
    await super.insert(rows, attempts, now, leaseMs);
    await this.afterInsert?.();
  }
}

describe('a poll that claims an execute before its insert returned', () => {
  const pdp = usePdp();

  it('delivers it once', async () => {
    const pxp = await new TestEndpoint(true).start();
    const targets = new CallTargets({ timeoutMs: 5000, maxConcurrency: 4, breakerFailures: 5, breakerOpenMs: 1000 });
    const registry = new ComponentRegistry(new Map([['urn:component:acme:pxp:mail', component('PXP', 'mail', pxp.url, [ACTION])]]));
    const store = new StallingStore(pdp.pool, 'race-replica');
    let clock = Date.now();
    const gateway = new PxpGateway({
      targets,
      logger: memoryLogger('info').logger,
      timeoutMs: 5000,
      syncTimeoutMs: 500,
      attempts: 3,
      backoffMs: 10,
      durable: { store, leaseMs: LEASE_MS, pollMs: 60_000, registry: () => registry, now: () => clock },
    });
    try {
      // The replica stalls right after the insert, longer than the lease; its poll sees the claim expired.
      store.afterInsert = () => {
        clock += LEASE_MS + 1;
        return gateway.poll();
      };
      await gateway.dispatch(registry, [{ policyId: 'urn:policy:acme:p', action: ACTION, parameters: [] }], { decisionId: 'urn:decision:race' });
      const row = await pdp.pool.query<{ id: string }>('SELECT id FROM pdp.executions WHERE decision_id = $1', ['urn:decision:race']);
      const id = row.rows[0]!.id;
      await waitFor(async () => (await pdp.pool.query<{ state: string }>('SELECT state FROM pdp.executions WHERE id = $1', [id])).rows[0]?.state === 'done', {
        what: 'the execute done',
      });
      // Both starts (the poll's and the insert's) are taken or refused by now: the gateway holds nothing more.
      await waitFor(() => gateway.size === 0, { what: 'no execute pending' });
      expect(pxp.calls.map((call) => call.idempotencyKey)).toEqual([id]);
    } finally {
      await gateway.drain(1000);
      targets.close();
      await pxp.stop();
    }
  });
});
