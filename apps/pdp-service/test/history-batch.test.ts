import type { Pool } from 'pg';
import type { HistoryQuery, TimeSpan } from '@custos/policy-engine';
import { createPool, migrate } from '@custos/service-kit';
import { createTestDatabase, type TestDatabase } from '@custos/test-kit';
import type { RecordedEvent } from '../src/history/batch';
import { HistoryHasher } from '../src/history/hashing';
import type { ActionPlan } from '../src/history/plan';
import { historySecret } from '../src/history/secret';
import { PgHistoryStore } from '../src/history/store';
import { actionPlan } from './support/history-plan';
import { memoryLogger } from './support/logger';
import { MIGRATIONS } from './support/pdp';

/**
 * Group recording (HistoryBatcher) on real PostgreSQL: several stores stand for several replicas, each with its own
 * pool. The property every test comes back to: a recorded decision sees exactly the events of its action up to its
 * own, in the order of the action's lock, whichever replica recorded them and whenever it asks.
 */
const ACT = 'urn:action:acme:download';
const OTHER = 'urn:action:acme:print';
const DAY = 86_400_000;
const T0 = Date.UTC(2026, 0, 15, 12);

const plan = (action: string, filters: ActionPlan['filters'] = [{ name: 'user', path: null }]): ActionPlan => actionPlan(action, filters);

const byUser = (action: string, user: string): HistoryQuery => ({
  policyId: 'urn:policy:acme:p',
  action,
  filters: [{ name: 'user', path: null, value: user }],
});
const today: TimeSpan = { from: T0 - (T0 % DAY), to: T0 - (T0 % DAY) + DAY };
const always: TimeSpan = { from: -Infinity, to: Infinity };

describe('group recording of history decisions', () => {
  let database: TestDatabase;
  let pools: Pool[];
  let stores: PgHistoryStore[];
  let hasher: HistoryHasher;
  const log = memoryLogger('info');
  /** Replica i (of three, round robin), and the pool tests read PostgreSQL with. */
  const replica = (i: number): PgHistoryStore => stores[i % stores.length] as PgHistoryStore;
  const main = (): Pool => pools[0] as Pool;
  /** The element at `index`, which the test knows to be there. */
  const at = <T>(list: readonly T[], index: number): T => {
    const item = list[index];
    if (item === undefined) throw new Error(`no element at ${index}`);
    return item;
  };

  beforeAll(async () => {
    database = await createTestDatabase('custos_pdp_batch');
    await migrate({ databaseUrl: database.url, schema: 'pdp', dir: MIGRATIONS, logger: log.logger });
    pools = [0, 1, 2].map(() => createPool(database.url, log.logger, { max: 6 }));
    hasher = new HistoryHasher(await historySecret(main(), undefined));
    // Replica 2 sends up to two batches of an action at once (the others one): the properties hold either way.
    stores = pools.map((pool, i) => new PgHistoryStore({ pool, hasher, logger: log.logger, maxBatch: 8, inFlight: i === 2 ? 2 : 1 }));
  });

  afterAll(async () => {
    await Promise.all(pools.map((pool) => pool.end()));
    await database.drop();
  });

  beforeEach(async () => {
    await main().query('TRUNCATE pdp.history_events, pdp.value_changed');
  });

  // One plan per action, as a replica holds one per activated policy set (a new plan starts the remembered counts afresh).
  const plans = new Map([ACT, OTHER].map((action) => [action, plan(action)]));
  const record = (store: PgHistoryStore, user: string, now = T0, action = ACT, actionPlan = plans.get(action) as ActionPlan): Promise<RecordedEvent> =>
    store.batcher.record({ plan: actionPlan, revision: 1, solution: 'acme', keys: hasher.eventKeys(new Map([['user', user]]), actionPlan.filters), now });

  /** What PostgreSQL counts for `user` among the events of `action` with ids up to `id`. */
  const counted = async (action: string, user: string, id: number, span: TimeSpan): Promise<number> => {
    const result = await main().query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pdp.history_events WHERE action = $1 AND id <= $2 AND keys @> $3::text[]
         AND occurred_at >= $4 AND occurred_at < $5`,
      [action, id, [hasher.key('user', null, user)], Math.max(span.from, Number.MIN_SAFE_INTEGER), Math.min(span.to, Number.MAX_SAFE_INTEGER)],
    );
    return result.rows[0]?.n ?? Number.NaN;
  };

  it('bounds batches: decisions that arrive together share one transaction, at most `maxBatch` of them', async () => {
    const recorded = await Promise.all(Array.from({ length: 20 }, () => record(replica(0), 'u')));
    expect(recorded.every((event) => event.at === T0)).toBe(true);
    expect(await Promise.all(recorded.map((event) => event.durable))).toEqual(Array.from({ length: 20 }, () => true));
    // Every batch is its own transaction, so the rows of one batch share their xmin. The first decision goes at
    // once, alone; the 19 that queued meanwhile go 8, 8, 3.
    const batches = await main().query<{ n: number }>('SELECT count(*)::int AS n FROM pdp.history_events GROUP BY xmin::text ORDER BY min(id)');
    expect(batches.rows.map((row) => row.n)).toEqual([1, 8, 8, 3]);
    // Ids follow arrival order.
    const ids = recorded.map((event) => event.id);
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);
  });

  it('sends a decision at once while fewer than `inFlight` batches of its action are on their way', async () => {
    const store = new PgHistoryStore({ pool: main(), hasher, logger: log.logger, maxBatch: 8, inFlight: 2 });
    const recorded = await Promise.all(Array.from({ length: 20 }, () => record(store, 'u')));
    // The first two go at once, alone, each on its own connection; the 18 that queued meanwhile go 8, 8, 2 as those
    // come back, in whichever order they take the lock.
    const batches = await main().query<{ n: number; ids: string[] }>(
      'SELECT count(*)::int AS n, array_agg(id ORDER BY id)::text[] AS ids FROM pdp.history_events GROUP BY xmin::text ORDER BY min(id)',
    );
    expect(batches.rows.map((row) => row.n).sort((x, y) => x - y)).toEqual([1, 1, 2, 8, 8]);
    // Inside each batch, ids follow arrival order; each decision counts exactly the events up to its own.
    const arrival = new Map(recorded.map((event, index) => [event.id, index]));
    for (const row of batches.rows) {
      const order = row.ids.map((id) => arrival.get(Number(id)) ?? Number.NaN);
      expect([...order].sort((x, y) => x - y)).toEqual(order);
    }
    for (const event of recorded) expect(await event.history.count(byUser(ACT, 'u'), [today])).toEqual([await counted(ACT, 'u', event.id, today)]);
  });

  it('answers only once the batch is on disk, even where the database commits without waiting for it by default', async () => {
    const lazy = await createTestDatabase('custos_pdp_batch_lazy');
    await migrate({ databaseUrl: lazy.url, schema: 'pdp', dir: MIGRATIONS, logger: log.logger });
    await main().query(`ALTER DATABASE "${lazy.name}" SET synchronous_commit = off`);
    // Connections opened from now on commit without waiting for the disk unless told otherwise.
    const pool = createPool(lazy.url, log.logger, { max: 2 });
    try {
      expect((await pool.query<{ synchronous_commit: string }>('SHOW synchronous_commit')).rows[0]?.synchronous_commit).toBe('off');
      const store = new PgHistoryStore({ pool, hasher, logger: log.logger });
      // Written before the batch: unless something flushed the WAL past it, the batch's own commit is not on disk.
      // Without the flush, the WAL writer's next round (every 200 ms) would rarely come in between, twenty times.
      for (let i = 0; i < 20; i++) {
        const before = (await pool.query<{ lsn: string }>('SELECT pg_current_wal_insert_lsn()::text AS lsn')).rows[0]?.lsn;
        await record(store, 'a', T0 + i);
        const flushed = await pool.query<{ ok: boolean }>('SELECT pg_current_wal_flush_lsn() >= $1::pg_lsn AS ok', [before]);
        expect(flushed.rows[0]?.ok).toBe(true);
      }
    } finally {
      await pool.end();
      await lazy.drop();
    }
  });

  it('records actions, solutions and keys holding quotes, backslashes and array syntax as they are (arrays travel as literals)', async () => {
    const action = "urn:action:acme:it's\\odd'; DROP TABLE pdp.history_events; --";
    const odd = plan(action);
    const events = await Promise.all(
      ['a', "o'b"].map((user) =>
        replica(1).batcher.record({ plan: odd, revision: 7, solution: 'ac\'m"e{,}\\ NULL', keys: hasher.eventKeys(new Map([['user', user]]), odd.filters), now: T0 }),
      ),
    );
    const rows = await main().query<{ action: string; solution: string; revision: string }>('SELECT action, solution, revision FROM pdp.history_events ORDER BY id');
    expect(rows.rows).toEqual([
      { action, solution: 'ac\'m"e{,}\\ NULL', revision: '7' },
      { action, solution: 'ac\'m"e{,}\\ NULL', revision: '7' },
    ]);
    expect(await at(events, 1).history.count(byUser(action, "o'b"), [today])).toEqual([1]);
  });

  it('lets each decision of concurrent batches on three replicas see exactly the events up to its own', async () => {
    const users = ['a', 'b', 'c'];
    const decisions = await Promise.all(
      Array.from({ length: 150 }, async (_, i) => {
        const user = at(users, i % 3);
        const event = await record(replica(i), user, T0 + i);
        const [seen] = await event.history.count(byUser(ACT, user), [today]);
        return { user, id: event.id, seen: seen ?? Number.NaN, durable: await event.durable };
      }),
    );
    expect(decisions.every((decision) => decision.durable)).toBe(true);
    for (const decision of decisions) expect(decision.seen).toBe(await counted(ACT, decision.user, decision.id, today));
    // Per user, the counts seen are 1…50: every decision counted itself and those before it, none twice, none after.
    for (const user of users) {
      const seen = decisions.filter((decision) => decision.user === user).map((decision) => decision.seen);
      expect(seen.sort((x, y) => x - y)).toEqual(Array.from({ length: 50 }, (_, k) => k + 1));
    }
  });

  it('brings remembered counts forward and back exactly, across replicas, spans and late questions', async () => {
    // Warm every replica's memory of the counts, then record more from all of them and ask late, out of order.
    const first = await Promise.all([0, 1, 2].map((index) => record(replica(index), 'a')));
    for (const event of first) await event.history.count(byUser(ACT, 'a'), [today]);
    const later = await Promise.all(Array.from({ length: 60 }, (_, i) => record(replica(i), i % 2 === 0 ? 'a' : 'b', T0 + DAY * (i % 4 === 0 ? 1 : 0))));
    for (const event of [...later].reverse()) {
      for (const user of ['a', 'b']) {
        for (const span of [today, always]) {
          const [seen] = await event.history.count(byUser(ACT, user), [span]);
          expect(seen).toBe(await counted(ACT, user, event.id, span));
        }
      }
    }
    // FIRST/LAST see the events up to their own as well.
    const last = at(later, later.length - 1);
    expect(await at(first, 0).history.occurrence(byUser(ACT, 'a'), 'last', Infinity)).toBe(at(first, 0).at);
    expect(await last.history.occurrence(byUser(ACT, 'a'), 'first', Infinity)).toBe(T0);
  });

  it('answers a span that runs to now ("today") from remembered counts, without a statement, and exactly', async () => {
    const pool = createPool(database.url, log.logger, { max: 4 });
    const statements: string[] = [];
    const query = pool.query.bind(pool) as (text: string) => Promise<unknown>;
    (pool as unknown as { query: (text: string) => Promise<unknown> }).query = (text: string) => {
      statements.push(text);
      return query(text);
    };
    const store = new PgHistoryStore({ pool, hasher, logger: log.logger });
    const upToNow = (event: RecordedEvent): TimeSpan => ({ from: today.from, to: event.at + 1 });
    try {
      const first = await record(store, 'a', T0);
      expect(await first.history.count(byUser(ACT, 'a'), [upToNow(first)])).toEqual([1]);
      const counts = statements.filter((text) => text.startsWith('SELECT count')).length;
      expect(counts).toBe(1);
      // Later decisions (from this replica and another) end their span at their own, later, time.
      for (let i = 1; i <= 6; i++) {
        await record(replica(1), i % 2 === 0 ? 'a' : 'b', T0 + i);
        const event = await record(store, 'a', T0 + i);
        const [seen] = await event.history.count(byUser(ACT, 'a'), [upToNow(event)]);
        expect(seen).toBe(await counted(ACT, 'a', event.id, upToNow(event)));
      }
      expect(statements.filter((text) => text.startsWith('SELECT count'))).toHaveLength(counts);
    } finally {
      await pool.end();
    }
  });

  it('keeps what it knows of an action across policy sets that plan it the same way, and starts over when they do not', async () => {
    const pool = createPool(database.url, log.logger, { max: 4 });
    const counts: string[] = [];
    const query = pool.query.bind(pool) as (text: string) => Promise<unknown>;
    (pool as unknown as { query: (text: string) => Promise<unknown> }).query = (text: string) => {
      if (text.startsWith('SELECT count')) counts.push(text);
      return query(text);
    };
    const store = new PgHistoryStore({ pool, hasher, logger: log.logger });
    const recordWith = (actionPlan: ActionPlan, now: number): Promise<RecordedEvent> =>
      store.batcher.record({ plan: actionPlan, revision: 1, solution: 'acme', keys: hasher.eventKeys(new Map([['user', 'a']]), actionPlan.filters), now });
    try {
      const first = await recordWith(plan(ACT), T0);
      expect(await first.history.count(byUser(ACT, 'a'), [today])).toEqual([1]);
      expect(counts).toHaveLength(1);
      // A new set (a periodic resync): a new plan object, the same filters and horizon — no statement, still exact.
      const again = await recordWith(plan(ACT), T0 + 1);
      expect(await again.history.count(byUser(ACT, 'a'), [today])).toEqual([2]);
      expect(counts).toHaveLength(1);
      // Retention now keeps the action's events for another span: counted again from PostgreSQL.
      const otherHorizon = await recordWith({ ...plan(ACT), horizonMs: DAY }, T0 + 2);
      expect(await otherHorizon.history.count(byUser(ACT, 'a'), [today])).toEqual([3]);
      expect(counts).toHaveLength(2);
      // Other filters: counted again too.
      const otherFilters = await recordWith({ ...plan(ACT, [{ name: 'user', path: null }, { name: 'doc', path: null }]), horizonMs: DAY }, T0 + 3);
      expect(await otherFilters.history.count(byUser(ACT, 'a'), [today])).toEqual([4]);
      expect(counts).toHaveLength(3);
    } finally {
      await pool.end();
    }
  });

  it('inserts keys into their index directly: no pending list whose merge an insert under the action lock would pay', async () => {
    const index = await main().query<{ options: string[] | null }>(
      "SELECT c.reloptions AS options FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'pdp' AND c.relname = 'history_events_keys_idx'",
    );
    expect(index.rows[0]?.options).toContain('fastupdate=off');
  });

  it('forgets what it remembered when the events it knew were deleted', async () => {
    for (let i = 0; i < 3; i++) {
      const event = await record(replica(0), 'a', T0 + i);
      expect(await event.history.count(byUser(ACT, 'a'), [always])).toEqual([i + 1]);
    }
    await main().query('DELETE FROM pdp.history_events');
    const after = await record(replica(0), 'a', T0 - 1000);
    expect(after.at).toBe(T0 - 1000);
    expect(await after.history.count(byUser(ACT, 'a'), [always])).toEqual([1]);
  });

  it('never lets concurrent decisions on three replicas exceed "at most 5"', async () => {
    const allowed = await Promise.all(
      Array.from({ length: 90 }, async (_, i) => {
        const event = await record(replica(i), 'u', Date.now());
        const [count] = await event.history.count(byUser(ACT, 'u'), [{ from: event.at - 60_000, to: event.at + 1 }]);
        return count !== undefined && count <= 5 && (await event.durable);
      }),
    );
    expect(allowed.filter(Boolean)).toHaveLength(5);
    expect((await main().query('SELECT 1 FROM pdp.history_events')).rowCount).toBe(90);
  });

  it('never lets "at most 5" be exceeded while replicas change between policy sets that plan the action alike', async () => {
    // Every decision comes with a plan object of its own, as if each replica activated a new set each time; one
    // span for all, so that counts are remembered and brought forward across those sets.
    const from = Date.now() - 60_000;
    const allowed = await Promise.all(
      Array.from({ length: 90 }, async (_, i) => {
        const event = await record(replica(i), 'u', Date.now(), ACT, plan(ACT));
        const [count] = await event.history.count(byUser(ACT, 'u'), [{ from, to: event.at + 1 }]);
        return count !== undefined && count <= 5 && (await event.durable);
      }),
    );
    expect(allowed.filter(Boolean)).toHaveLength(5);
    expect((await main().query('SELECT 1 FROM pdp.history_events')).rowCount).toBe(90);
  });

  it('records at times that never go back in the order of the lock, whatever the clocks of the replicas say', async () => {
    const early = await record(replica(0), 'a', T0);
    const behind = await record(replica(1), 'a', T0 - 5000);
    expect([early.at, behind.at]).toEqual([T0, T0]);
    // Three decisions of one replica with clocks out of order: two go at once (either may take the lock first).
    const batch = await Promise.all([T0 + 10, T0 + 5, T0 + 20].map((now) => record(replica(2), 'a', now)));
    const inLockOrder = [...batch].sort((x, y) => x.id - y.id).map((event) => event.at);
    expect([...inLockOrder].sort((x, y) => x - y)).toEqual(inLockOrder);
    expect(at(batch, 0).at).toBe(T0 + 10);
    expect(at(batch, 2).at).toBe(T0 + 20);
    expect([T0 + 5, T0 + 10]).toContain(at(batch, 1).at);
    expect((await record(replica(0), 'a', T0 - 9000, OTHER)).at).toBe(T0 - 9000);
  });

  it('keeps a failing question to the decision that asked it', async () => {
    const batch = await Promise.all(['a', 'a', 'a'].map((user) => record(replica(0), user)));
    await expect(at(batch, 0).history.count(byUser(ACT, 'a'), [{ from: Number.NaN, to: T0 }])).rejects.toThrow(/not an integer/);
    // The others count the events up to their own, in the order of the lock (two of them went at once).
    const rank = (event: RecordedEvent): number => batch.filter((other) => other.id <= event.id).length;
    expect(await at(batch, 1).history.count(byUser(ACT, 'a'), [today])).toEqual([rank(at(batch, 1))]);
    expect(await at(batch, 2).history.count(byUser(ACT, 'a'), [today])).toEqual([rank(at(batch, 2))]);
  });

  it('fails a batch closed, and those queued behind it, when the database cannot be reached; nothing is recorded', async () => {
    const unreachable = createPool(`${database.url}_missing`, log.logger, { max: 2 });
    const store = new PgHistoryStore({ pool: unreachable, hasher, logger: log.logger });
    try {
      const outcomes = await Promise.allSettled(Array.from({ length: 5 }, () => record(store, 'a')));
      expect(outcomes.map((outcome) => outcome.status)).toEqual(Array.from({ length: 5 }, () => 'rejected'));
    } finally {
      await unreachable.end();
    }
    expect((await main().query('SELECT 1 FROM pdp.history_events')).rowCount).toBe(0);
  });

  it('compares and stores valueChanged atomically for recorded decisions: of equal concurrent changes one sees it', async () => {
    const batch = await Promise.all(Array.from({ length: 12 }, (_, i) => record(replica(i), 'a')));
    const changed = await Promise.all(batch.map((event) => event.history.valueChanged({ policyId: 'urn:policy:acme:p', id: 'v', value: 'x', store: true })));
    expect(changed.filter(Boolean)).toHaveLength(1);
  });
});
