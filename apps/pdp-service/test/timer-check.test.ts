import type { Pool } from 'pg';
import type { TimerDocument } from '@custos/policy-engine';
import { createPool, migrate } from '@custos/service-kit';
import { createTestDatabase, waitFor, type TestDatabase } from '@custos/test-kit';
import type { Decider } from '../src/decision/decider';
import type { ActivePolicySet } from '../src/policy-set/follower';
import { compileTimer } from '../src/timers/schedule';
import { TimerScheduler } from '../src/timers/scheduler';
import { memoryLogger } from './support/logger';
import { MIGRATIONS, timerXml } from './support/pdp';

/**
 * The periodic check looks for the missed and abandoned ticks of every deployed timer in one statement, however many
 * are deployed (before, it sent one per timer). Against real PostgreSQL; the pool is watched to see the statements.
 */
const TIMERS = 12;

describe('the periodic timer check', () => {
  let database: TestDatabase;
  let pool: Pool;
  const log = memoryLogger('warn');

  beforeAll(async () => {
    database = await createTestDatabase('custos_pdp_timer_check');
    await migrate({ databaseUrl: database.url, schema: 'pdp', dir: MIGRATIONS, logger: log.logger });
    pool = createPool(database.url, log.logger, { max: 2 });
  });

  afterAll(async () => {
    await pool.end();
    await database.drop();
  });

  const timer = (index: number): TimerDocument => {
    // Nightly: no tick falls due while the test runs, so nothing is fired and no decision is needed.
    const compiled = compileTimer(timerXml(`urn:timer:acme:nightly-${index}`, '0 0 3 * * ?', '<event action="urn:action:acme:tick"/>'));
    if (!compiled.ok) throw new Error(compiled.problems.join('\n'));
    return compiled.timer;
  };

  it('reads what is known of every deployed timer with one statement per check', async () => {
    const timers = new Map(Array.from({ length: TIMERS }, (_, index) => timer(index)).map((t) => [t.id, t]));
    // The scheduler reads only the revision and the timers of a set, and decides nothing while no tick fires.
    const active = { revision: 1, timers } as unknown as ActivePolicySet;
    const statements: Array<{ text: string; values: unknown[] }> = [];
    const watched = {
      query: ((text: string, values: unknown[] = []) => {
        statements.push({ text, values });
        return pool.query(text, values);
      }) as Pool['query'],
    };
    const scheduler = new TimerScheduler({
      pool: watched,
      decider: undefined as unknown as Decider,
      logger: log.logger,
      timeZone: 'UTC',
      replicaId: 'replica-a',
      active: () => active,
      checkMs: 20,
    });
    try {
      scheduler.update(active);
      const lookUps = () => statements.filter((statement) => statement.text.includes('pdp.timer_ticks'));
      // The look-up after the timers were scheduled, then at least three periodic checks.
      await waitFor(() => lookUps().length >= 4, { what: 'four look-ups' });
      await scheduler.stop();
      for (const lookUp of lookUps()) expect([...(lookUp.values[0] as string[])].sort()).toEqual([...timers.keys()].sort());
      expect(statements.filter((statement) => statement.text.includes('INSERT INTO pdp.timer_ticks'))).toEqual([]);
      expect(log.lines.filter((line) => Number(line.level) >= 40)).toEqual([]);
    } finally {
      await scheduler.stop();
    }
  });
});
