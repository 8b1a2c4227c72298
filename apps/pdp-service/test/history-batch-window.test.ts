import type { Pool } from 'pg';
import { createPool, migrate } from '@custos/service-kit';
import { createTestDatabase, type TestDatabase } from '@custos/test-kit';
import type { RecordedEvent } from '../src/history/batch';
import { HistoryHasher } from '../src/history/hashing';
import { historySecret } from '../src/history/secret';
import { PgHistoryStore, type HistoryPhase } from '../src/history/store';
import { actionPlan } from './support/history-plan';
import { memoryLogger } from './support/logger';
import { MIGRATIONS } from './support/pdp';

/**
 * The batch window (PDP_HISTORY_BATCH_WINDOW_MS): a batch's first decision waits for others to join it, so fewer,
 * bigger batches go — each decision still sees exactly the events of its action up to its own. Batches are counted
 * by the `record` phase the batcher reports once per round trip.
 */
const ACT = 'urn:action:acme:window';
const T0 = Date.UTC(2026, 0, 15, 12);
const DAY = 86_400_000;
const today = { from: T0 - (T0 % DAY), to: T0 - (T0 % DAY) + DAY };
const plan = actionPlan(ACT, []);
const allOfToday = { policyId: 'urn:policy:acme:p', action: ACT, filters: [] };

describe('the batch window of history decisions', () => {
  let database: TestDatabase;
  let pool: Pool;
  let hasher: HistoryHasher;
  const log = memoryLogger('info');

  beforeAll(async () => {
    database = await createTestDatabase('custos_pdp_batch_window');
    await migrate({ databaseUrl: database.url, schema: 'pdp', dir: MIGRATIONS, logger: log.logger });
    pool = createPool(database.url, log.logger, { max: 4 });
    hasher = new HistoryHasher(await historySecret(pool, undefined));
  });

  afterAll(async () => {
    await pool.end();
    await database.drop();
  });

  beforeEach(async () => {
    await pool.query('TRUNCATE pdp.history_events');
  });

  /** A replica with this window and batch size, and the number of round trips (batches) it made. */
  const replica = (batchWindowMs: number, maxBatch: number): { store: PgHistoryStore; batches: () => number } => {
    let batches = 0;
    const metrics = { failures: () => undefined, phase: (phase: HistoryPhase) => void (phase === 'record' && (batches += 1)) };
    return { store: new PgHistoryStore({ pool, hasher, logger: log.logger, maxBatch, batchWindowMs, metrics }), batches: () => batches };
  };
  const record = (store: PgHistoryStore): Promise<RecordedEvent> => store.batcher.record({ plan, revision: 1, solution: 'acme', keys: [], now: T0 });
  /** Records `n` decisions, each from a later turn of the event loop than the one before (as requests arrive). */
  const arriving = async (store: PgHistoryStore, n: number): Promise<RecordedEvent[]> => {
    const recorded: Array<Promise<RecordedEvent>> = [];
    for (let i = 0; i < n; i += 1) {
      recorded.push(record(store));
      await new Promise((resolve) => setImmediate(resolve));
    }
    return Promise.all(recorded);
  };

  it('without a window the first decision goes at once, alone', async () => {
    const { store, batches } = replica(0, 3);
    const events = await arriving(store, 3);
    expect(events).toHaveLength(3);
    expect(batches()).toBeGreaterThanOrEqual(2);
  });

  it('with a window, decisions arriving in turn go together, and a full batch goes without waiting for the window', async () => {
    // A window no test would wait out: the batch can only have gone because it was full.
    const { store, batches } = replica(600_000, 3);
    const events = await arriving(store, 3);
    expect(batches()).toBe(1);
    expect(events.map((event) => event.id - (events[0] as RecordedEvent).id)).toEqual([0, 1, 2]);
    // Each one counts the events up to its own, its own included.
    const counts = await Promise.all(events.map(async (event) => (await event.history.count(allOfToday, [today]))[0]));
    expect(counts).toEqual([1, 2, 3]);
  });

  it('a lone decision goes when its window ends', async () => {
    const { store, batches } = replica(5, 64);
    const event = await record(store);
    expect(batches()).toBe(1);
    expect(await event.durable).toBe(true);
  });
});
