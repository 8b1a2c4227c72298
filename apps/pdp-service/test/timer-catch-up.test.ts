import { Pool } from 'pg';
import { nextFireTime } from '@custos/policy-engine';
import { TestAuthority, createTestDatabase, uniqueNatsPrefix, waitFor, type TestDatabase } from '@custos/test-kit';
import { compileTimer } from '../src/timers/schedule';
import { FakePap } from './support/fake-pap';
import { startPdp, timerXml, type PdpHarness } from './support/pdp';

/**
 * Catch-up of timer ticks (docs/api.md, "Timers"): a tick due while no replica ran is fired once by the first replica
 * that starts again (`last`), or never (`skip`); ticks claimed and not finished by a dead replica are fired by another.
 */
const TIMER = 'urn:timer:acme:every-three';
const CRON = '*/3 * * * * ?';
const TICK = 'urn:action:acme:tick';

describe('timer catch-up', () => {
  let authority: TestAuthority;
  let database: TestDatabase;
  let pap: FakePap;
  let pool: Pool;
  const running: PdpHarness[] = [];

  const timer = (() => {
    const compiled = compileTimer(timerXml(TIMER, CRON, `<event action="${TICK}"/>`));
    if (!compiled.ok) throw new Error(compiled.problems.join('\n'));
    return compiled.timer;
  })();
  const nextTick = (after: number) => nextFireTime(timer, new Date(after), 'UTC')?.getTime() ?? Infinity;

  beforeAll(async () => {
    authority = await new TestAuthority().start();
    database = await createTestDatabase('custos_pdp_catchup');
    pap = await FakePap.start(uniqueNatsPrefix());
    pool = new Pool({ connectionString: database.url, max: 2 });
  });

  afterAll(async () => {
    for (const replica of running) await replica.stop({ keepShared: true });
    await pap?.stop();
    await pool?.end();
    await database?.drop();
    await authority?.stop();
  });

  const start = async (replicaId: string, timerCatchUp: 'last' | 'skip') => {
    const replica = await startPdp({ authority, database, pap, timers: true, replicaId, timerCatchUp, timerCheckMs: 200 });
    running.push(replica);
    return replica;
  };
  const stop = async (replica: PdpHarness) => {
    running.splice(running.indexOf(replica), 1);
    await replica.stop({ keepShared: true });
  };
  const fired = (replica: PdpHarness) => replica.log.lines.filter((l) => l.msg === 'timer fired' && l.timerId === TIMER);
  const ticks = async () =>
    (await pool.query<{ scheduled_at: string }>('SELECT scheduled_at FROM pdp.timer_ticks WHERE timer_id = $1 ORDER BY scheduled_at', [TIMER])).rows.map((row) =>
      Number(row.scheduled_at),
    );
  /** Waits until the first tick after `time` has passed with no replica running. */
  const letATickPass = async (time: number) => {
    const missed = nextTick(time);
    await waitFor(() => Date.now() > missed + 100, { timeoutMs: 5000, what: 'a tick passing' });
    return missed;
  };

  it('fires the last tick missed while every replica was down once, late, on the first replica back', async () => {
    const first = await start('replica-a', 'last');
    const revision = pap.deploy(TIMER, timerXml(TIMER, CRON, `<event action="${TICK}"/>`));
    await waitFor(() => (first.follower.active?.revision ?? -1) >= revision, { what: 'the timer deployed' });
    await waitFor(() => fired(first).length >= 1, { timeoutMs: 8000, what: 'a first tick' });
    await stop(first);
    const stoppedAt = Date.now();
    const lastBeforeStop = Math.max(...(await ticks()));
    await letATickPass(stoppedAt);

    const startedAt = Date.now();
    const second = await start('replica-b', 'last');
    const caughtUp = await waitFor(() => fired(second).find((l) => l.how === 'caught-up'), { timeoutMs: 5000, what: 'the caught-up tick' });
    // The last tick due between the last claimed one and the restart; any earlier missed ones stay missed.
    let expected = nextTick(lastBeforeStop);
    while (nextTick(expected) <= startedAt) expected = nextTick(expected);
    expect(Date.parse(caughtUp.scheduledAt as string)).toBe(expected);
    const rows = await ticks();
    expect(rows.filter((time) => time > lastBeforeStop && time <= startedAt)).toEqual([expected]);
    expect(fired(second).filter((l) => l.how === 'caught-up')).toHaveLength(1);

    // A second replica starting now finds nothing missed: the caught-up tick is claimed.
    const third = await start('replica-c', 'last');
    await waitFor(() => fired(second).length + fired(third).length >= 3, { timeoutMs: 10_000, what: 'ticks on time after the catch-up' });
    expect(fired(third).filter((l) => l.how === 'caught-up')).toHaveLength(0);
    const all = await ticks();
    expect(new Set(all).size).toBe(all.length);
    await stop(second);
    await stop(third);
  });

  it('with `skip`, leaves a tick missed while every replica was down unfired', async () => {
    const lastBeforeStop = Math.max(...(await ticks()));
    const missed = await letATickPass(lastBeforeStop);
    const replica = await start('replica-d', 'skip');
    // Once a tick fired on time, any catch-up would have happened already (it runs when the timer is scheduled).
    await waitFor(() => fired(replica).length >= 1, { timeoutMs: 8000, what: 'a tick on time' });
    expect(fired(replica).every((l) => l.how === undefined)).toBe(true);
    expect(await ticks()).not.toContain(missed);
    await stop(replica);
  });

  it('fires a tick another replica claimed but never finished, once its lease ran out', async () => {
    // What a replica killed between claiming and firing leaves: a claimed, unfinished row whose lease ran out.
    const lastBefore = Math.max(...(await ticks()));
    const orphan = nextTick(lastBefore);
    await pool.query(
      'INSERT INTO pdp.timer_ticks (timer_id, scheduled_at, replica, claimed_until) VALUES ($1, $2, $3, $4)',
      [TIMER, orphan, 'dead-replica', Date.now() - 1],
    );
    const replica = await start('replica-e', 'skip');
    const taken = await waitFor(() => fired(replica).find((l) => l.how === 'taken-over'), { timeoutMs: 5000, what: 'the abandoned tick' });
    expect(Date.parse(taken.scheduledAt as string)).toBe(orphan);
    const row = await pool.query<{ replica: string; done_at: string | null }>(
      'SELECT replica, done_at FROM pdp.timer_ticks WHERE timer_id = $1 AND scheduled_at = $2',
      [TIMER, orphan],
    );
    expect(row.rows[0]?.replica).toBe('replica-e');
    expect(row.rows[0]?.done_at).not.toBeNull();
    await stop(replica);
  });
});
