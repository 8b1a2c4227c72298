import type { Pool } from 'pg';
import type { EngineEvent, HistoryQuery } from '@custos/policy-engine';
import { createPool, migrate } from '@custos/service-kit';
import { createTestDatabase, type TestDatabase } from '@custos/test-kit';
import { HistoryHasher, canonicalJson } from '../src/history/hashing';
import { buildHistoryIndex, type ActionPlan, type HistoryIndex } from '../src/history/plan';
import { RETENTION_MARGIN_MS, TICK_RETENTION_MS, runRetention } from '../src/history/retention';
import { historySecret } from '../src/history/secret';
import { PgHistoryStore } from '../src/history/store';
import { actionPlan } from './support/history-plan';
import { memoryLogger } from './support/logger';
import { MIGRATIONS } from './support/pdp';

const ACT = 'urn:action:acme:download';
const OTHER = 'urn:action:acme:print';
const T0 = Date.UTC(2026, 0, 15, 12);

const plan = (action: string, filters: ActionPlan['filters'] = []): ActionPlan => actionPlan(action, filters);

const event = (action: string, parameters: Record<string, unknown> = {}): EngineEvent => ({
  action,
  timestamp: T0,
  parameters: new Map(Object.entries(parameters)),
});

const query = (action: string, filters: HistoryQuery['filters'] = []): HistoryQuery => ({ policyId: 'urn:policy:acme:p', action, filters });

describe('the event history in PostgreSQL', () => {
  let database: TestDatabase;
  let pool: Pool;
  let store: PgHistoryStore;
  const log = memoryLogger('info');

  beforeAll(async () => {
    database = await createTestDatabase('custos_pdp_history');
    await migrate({ databaseUrl: database.url, schema: 'pdp', dir: MIGRATIONS, logger: log.logger });
    pool = createPool(database.url, log.logger, { max: 12 });
    store = new PgHistoryStore({ pool, hasher: new HistoryHasher(await historySecret(pool, undefined)), logger: log.logger });
  });

  afterAll(async () => {
    await pool.end();
    await database.drop();
  });

  beforeEach(async () => {
    await pool.query('TRUNCATE pdp.history_events, pdp.value_changed, pdp.timer_ticks');
  });

  async function record(action: string, at: number, parameters: Record<string, unknown> = {}, filters: ActionPlan['filters'] = [], revision = 1) {
    const session = await store.record(plan(action, filters), event(action, parameters), 'acme', revision, at);
    expect(await session.commit()).toBe(true);
    return session.occurredAt;
  }

  it('generates one secret for every replica, unless one is configured', async () => {
    const first = await historySecret(pool, undefined);
    const second = await historySecret(pool, undefined);
    expect(first).toBe(second);
    expect(first.length).toBeGreaterThanOrEqual(40);
    expect(await historySecret(pool, 'configured-secret-0123456789')).toBe('configured-secret-0123456789');
  });

  it('stores keyed hashes only: no parameter value appears in the table', async () => {
    await record(ACT, T0, { user: 'alice-secret-name', file: { path: '/very/secret/report.pdf' } }, [{ name: 'file', path: '$.path' }]);
    const dump = JSON.stringify((await pool.query('SELECT * FROM pdp.history_events')).rows);
    expect(dump).not.toMatch(/alice|secret-name|report\.pdf/);
    const row = (await pool.query<{ keys: string[] }>('SELECT keys FROM pdp.history_events')).rows[0]!;
    // One key per parameter plus one per filter path.
    expect(row.keys).toHaveLength(3);
    // A different secret gives different keys: nothing can be matched without the server's secret.
    const other = new HistoryHasher('another-secret-0123456789');
    expect(row.keys).not.toContain(other.key('user', null, 'alice-secret-name'));
  });

  it('counts per span, all windows in one statement, with filters by value and by JSONPath', async () => {
    await record(ACT, T0 - 3000, { user: 'a', doc: { owner: 'x', tags: [1, 2] } }, [{ name: 'doc', path: '$.owner' }]);
    await record(ACT, T0 - 2000, { user: 'b', doc: { owner: 'x' } }, [{ name: 'doc', path: '$.owner' }]);
    await record(ACT, T0 - 1000, { user: 'a', doc: { owner: 'y' } }, [{ name: 'doc', path: '$.owner' }]);
    await record(OTHER, T0 - 1000, { user: 'a' });
    const reader = store.reader(1);
    expect(await reader.count(query(ACT), [{ from: -Infinity, to: T0 + 1 }])).toEqual([3]);
    expect(
      await reader.count(query(ACT), [
        { from: T0 - 3000, to: T0 - 2000 },
        { from: T0 - 2000, to: T0 - 1000 },
        { from: T0 - 1000, to: T0 },
        { from: T0, to: T0 + 1000 },
      ]),
    ).toEqual([1, 1, 1, 0]);
    expect(await reader.count(query(ACT, [{ name: 'user', path: null, value: 'a' }]), [{ from: -Infinity, to: T0 }])).toEqual([2]);
    expect(await reader.count(query(ACT, [{ name: 'doc', path: '$.owner', value: 'x' }]), [{ from: -Infinity, to: T0 }])).toEqual([2]);
    expect(
      await reader.count(query(ACT, [{ name: 'doc', path: '$.owner', value: 'x' }, { name: 'user', path: null, value: 'a' }]), [
        { from: -Infinity, to: T0 },
      ]),
    ).toEqual([1]);
    // Deep equality: key order does not matter.
    expect(
      await reader.count(query(ACT, [{ name: 'doc', path: null, value: { tags: [1, 2], owner: 'x' } }]), [{ from: -Infinity, to: T0 }]),
    ).toEqual([1]);
    // As the engine compares: a missing parameter equals a null filter value.
    expect(await reader.count(query(OTHER, [{ name: 'doc', path: null, value: null }]), [{ from: -Infinity, to: T0 }])).toEqual([0]);
  });

  it('finds the first and last occurrence before a time', async () => {
    await record(ACT, T0 - 3000, { user: 'a' });
    await record(ACT, T0 - 2000, { user: 'b' });
    await record(ACT, T0 - 1000, { user: 'a' });
    const reader = store.reader(1);
    expect(await reader.occurrence(query(ACT), 'first', T0)).toBe(T0 - 3000);
    expect(await reader.occurrence(query(ACT), 'last', T0)).toBe(T0 - 1000);
    expect(await reader.occurrence(query(ACT), 'last', T0 - 1000)).toBe(T0 - 2000);
    expect(await reader.occurrence(query(ACT, [{ name: 'user', path: null, value: 'b' }]), 'first', T0)).toBe(T0 - 2000);
    expect(await reader.occurrence(query(ACT), 'first', T0 - 3000)).toBeNull();
  });

  it('never records an event before the last one of its action (clocks of replicas may differ)', async () => {
    expect(await record(ACT, T0)).toBe(T0);
    expect(await record(ACT, T0 - 5000)).toBe(T0);
    expect(await record(OTHER, T0 - 5000)).toBe(T0 - 5000);
  });

  it('compares and stores valueChanged state atomically: of many concurrent equal changes exactly one sees it', async () => {
    const reader = store.reader(3);
    const request = (value: unknown, store = true) => ({ policyId: 'urn:policy:acme:p', id: 'v', value, store });
    expect(await reader.valueChanged(request('a'))).toBe(true);
    expect(await reader.valueChanged(request('a'))).toBe(false);
    expect(await reader.valueChanged(request('b', false))).toBe(true);
    // Comparing did not store.
    expect(await reader.valueChanged(request('a'))).toBe(false);
    const results = await Promise.all(Array.from({ length: 20 }, () => reader.valueChanged(request({ n: 1, m: [2] }))));
    expect(results.filter(Boolean)).toHaveLength(1);
    const stored = await pool.query<{ value_hash: string; revision: string }>('SELECT value_hash, revision FROM pdp.value_changed');
    expect(stored.rows).toHaveLength(1);
    // Stored as the keyed hash of the canonical value (key order does not matter), never the value itself.
    expect(stored.rows[0]!.value_hash).toBe(store.hasher.value({ m: [2], n: 1 }));
    expect(stored.rows[0]!.value_hash).not.toContain('"n"');
    expect(stored.rows[0]!.revision).toBe('3');
  });

  it('keeps a record and its valueChanged state only when the transaction commits', async () => {
    const session = await store.record(plan(ACT), event(ACT), 'acme', 1, T0);
    expect(await session.valueChanged({ policyId: 'urn:policy:acme:p', id: 'w', value: 1, store: true })).toBe(true);
    await session.rollback();
    expect((await pool.query('SELECT 1 FROM pdp.history_events')).rowCount).toBe(0);
    expect((await pool.query('SELECT 1 FROM pdp.value_changed')).rowCount).toBe(0);
    // A failed statement aborts the transaction: commit then reports the record as lost.
    const failing = await store.record(plan(ACT), event(ACT), 'acme', 1, T0);
    await expect(failing.count(query(ACT), [{ from: Number.NaN, to: 1 }])).rejects.toThrow();
    expect(await failing.commit()).toBe(false);
    expect((await pool.query('SELECT 1 FROM pdp.history_events')).rowCount).toBe(0);
  });

  it('explains as if the event were recorded, without writing anything', async () => {
    await record(ACT, T0 - 1000, { user: 'a' });
    const explainer = store.explainer(plan(ACT), event(ACT, { user: 'a' }), T0);
    expect(await explainer.count(query(ACT), [{ from: -Infinity, to: T0 + 1 }, { from: -Infinity, to: T0 }])).toEqual([2, 1]);
    expect(await explainer.count(query(ACT, [{ name: 'user', path: null, value: 'b' }]), [{ from: -Infinity, to: T0 + 1 }])).toEqual([0]);
    expect(await explainer.occurrence(query(ACT), 'last', T0 + 1)).toBe(T0);
    expect(await explainer.occurrence(query(ACT), 'first', T0 + 1)).toBe(T0 - 1000);
    expect(await explainer.valueChanged({ policyId: 'urn:policy:acme:p', id: 'x', value: 1, store: true })).toBe(true);
    expect((await pool.query('SELECT 1 FROM pdp.history_events')).rowCount).toBe(1);
    expect((await pool.query('SELECT 1 FROM pdp.value_changed')).rowCount).toBe(0);
  });

  it('never lets concurrent decisions on three pools exceed "at most 5"', async () => {
    const pools = [pool, createPool(database.url, log.logger, { max: 8 }), createPool(database.url, log.logger, { max: 8 })];
    const hasher = new HistoryHasher(await historySecret(pool, undefined));
    const stores = pools.map((p) => new PgHistoryStore({ pool: p, hasher, logger: log.logger }));
    try {
      const decideOne = async (index: number): Promise<boolean> => {
        const session = await stores[index % 3]!.record(plan(ACT), event(ACT, { user: 'u' }), 'acme', 1, Date.now());
        const [count] = await session.count(query(ACT, [{ name: 'user', path: null, value: 'u' }]), [
          { from: session.occurredAt - 60_000, to: session.occurredAt + 1 },
        ]);
        const allowed = count! <= 5;
        expect(await session.commit()).toBe(true);
        return allowed;
      };
      const allowed = await Promise.all(Array.from({ length: 60 }, (_, i) => decideOne(i)));
      expect(allowed.filter(Boolean)).toHaveLength(5);
      expect((await pool.query('SELECT 1 FROM pdp.history_events')).rowCount).toBe(60);
    } finally {
      await pools[1]!.end();
      await pools[2]!.end();
    }
  });

  describe('retention', () => {
    const index = (horizons: Record<string, number>, policies: string[] = []): HistoryIndex => ({
      ...buildHistoryIndex([]),
      recordedActions: new Set(Object.keys(horizons)),
      horizons: new Map(Object.entries(horizons)),
      historyPolicies: new Set(policies),
    });

    it('deletes what no deployed policy can see, and nothing written at a later revision', async () => {
      const hour = 3_600_000;
      await record(ACT, T0 - 3 * hour, {}, [], 5);
      await record(ACT, T0 - hour / 2, {}, [], 5);
      await record(OTHER, T0 - 10 * hour, {}, [], 5);
      await record('urn:action:acme:gone', T0, {}, [], 5);
      await record('urn:action:acme:newer', T0, {}, [], 7);
      const reader = store.reader(5);
      await reader.valueChanged({ policyId: 'urn:policy:acme:kept', id: 'v', value: 1, store: true });
      await reader.valueChanged({ policyId: 'urn:policy:acme:revoked', id: 'v', value: 1, store: true });
      await pool.query("INSERT INTO pdp.timer_ticks VALUES ('urn:timer:acme:t', $1, 'r'), ('urn:timer:acme:t', $2, 'r')", [
        T0 - TICK_RETENTION_MS - 1,
        T0,
      ]);

      const outcome = await runRetention(pool, { revision: 6, history: index({ [ACT]: hour, [OTHER]: Infinity }, ['urn:policy:acme:kept']) }, T0, log.logger);
      expect(outcome).toEqual({ ran: true, events: 2, states: 1, ticks: 1 });
      const left = await pool.query<{ action: string; occurred_at: string }>('SELECT action, occurred_at FROM pdp.history_events ORDER BY id');
      expect(left.rows.map((r) => [r.action, Number(r.occurred_at) - T0])).toEqual([
        [ACT, -hour / 2],
        [OTHER, -10 * hour],
        ['urn:action:acme:newer', 0],
      ]);
      expect((await pool.query('SELECT policy_id FROM pdp.value_changed')).rows).toEqual([{ policy_id: 'urn:policy:acme:kept' }]);
      // The margin keeps events just beyond the horizon.
      await record(ACT, T0 - hour - RETENTION_MARGIN_MS / 2, {}, [], 5);
      expect((await runRetention(pool, { revision: 6, history: index({ [ACT]: hour }) }, T0, log.logger)).events).toBe(1);
    });

    it('runs in one replica at a time', async () => {
      const holder = await pool.connect();
      try {
        await holder.query('SELECT pg_advisory_lock(7364977)');
        expect((await runRetention(pool, { revision: 1, history: index({}) }, T0, log.logger)).ran).toBe(false);
      } finally {
        await holder.query('SELECT pg_advisory_unlock(7364977)');
        holder.release();
      }
    });
  });

  it('writes canonical JSON whatever the key order', () => {
    expect(canonicalJson({ b: [1, { d: null, c: 'x' }], a: 1.0 })).toBe('{"a":1,"b":[1,{"c":"x","d":null}]}');
    expect(canonicalJson(undefined)).toBe('null');
  });
});
