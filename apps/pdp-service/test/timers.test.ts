import { TestAuthority, createTestDatabase, uniqueNatsPrefix, waitFor, type TestDatabase } from '@custos/test-kit';
import { FakePap } from './support/fake-pap';
import { TestEndpoint } from './support/endpoints';
import { component, policy, startPdp, timerXml, type PdpHarness } from './support/pdp';

/**
 * Timers (policy-language.md §10) on two replicas sharing one database and one (fake) pap: every tick is claimed in
 * PostgreSQL by exactly one replica, which decides the timer's events like PEP events and runs their executes.
 */
const TIMER = 'urn:timer:acme:heartbeat';
const TICK = 'urn:action:acme:tick';
const NOTIFY = 'urn:action:acme:notify';

describe('timers on two replicas', () => {
  let authority: TestAuthority;
  let database: TestDatabase;
  let pap: FakePap;
  let replicas: PdpHarness[];
  let pxp: TestEndpoint;

  beforeAll(async () => {
    authority = await new TestAuthority().start();
    database = await createTestDatabase('custos_pdp_timers');
    pap = await FakePap.start(uniqueNatsPrefix());
    pxp = await new TestEndpoint(true).start();
    replicas = [
      await startPdp({ authority, database, pap, timers: true, replicaId: 'replica-a', timeZone: 'Europe/Berlin' }),
      await startPdp({ authority, database, pap, timers: true, replicaId: 'replica-b', timeZone: 'Europe/Berlin' }),
    ];
  });

  afterAll(async () => {
    for (const replica of replicas ?? []) await replica.stop({ keepShared: true });
    await pap?.stop();
    await pxp?.stop();
    await database?.drop();
    await authority.stop();
  });

  const applied = (revision: number) =>
    Promise.all(replicas.map((replica) => waitFor(() => (replica.follower.active?.revision ?? -1) >= revision, { what: `revision ${revision}` })));
  const fired = () => replicas.flatMap((replica) => replica.log.lines.filter((l) => l.msg === 'timer fired' && l.timerId === TIMER));

  it('fires each tick once across the replicas, decides its events and runs their executes', async () => {
    pap.register(component('PXP', 'notifier', pxp.url, [NOTIFY]));
    pap.deploy(
      'urn:policy:acme:on-tick',
      policy(
        'urn:policy:acme:on-tick',
        `<mechanism event="${TICK}">
          <if><greater><count><eventOccurrence event="${TICK}"/><when fixedTime="always"/></count><constant:number value="1000"/></greater><then><inhibit/></then></if>
          <execute action="${NOTIFY}"><parameter:string name="kind"><event:string eventParameter="kind" default="?"/></parameter:string></execute>
        </mechanism>`,
      ),
    );
    await applied(
      pap.deploy(
        TIMER,
        timerXml(TIMER, '* * * * * ?', `<event action="${TICK}"><parameter:string name="kind" value="heartbeat"/><parameter:number name="n"><constant:number value="7"/></parameter:number></event>`),
      ),
    );
    for (const replica of replicas) expect(replica.scheduler!.upcoming().map((t) => t.id)).toEqual([TIMER]);

    await waitFor(() => fired().length >= 4, { timeoutMs: 15_000, what: 'four ticks' });
    const ticks = await replicas[0]!.pool.query<{ scheduled_at: string; replica: string }>(
      'SELECT scheduled_at, replica FROM pdp.timer_ticks WHERE timer_id = $1 ORDER BY scheduled_at',
      [TIMER],
    );
    // Ticks are whole seconds, one row each; both replicas tried every tick, one of them won it.
    const times = ticks.rows.map((row) => Number(row.scheduled_at));
    expect(times.every((time) => time % 1000 === 0)).toBe(true);
    expect(new Set(times).size).toBe(times.length);
    const firedTimes = fired().map((line) => Date.parse(line.scheduledAt as string));
    expect(new Set(firedTimes).size).toBe(firedTimes.length);
    const attempts = await Promise.all(replicas.map((r) => r.metrics.registry.getSingleMetricAsString('timer_ticks_total')));
    expect(attempts.join('\n')).toMatch(/outcome="claimed-elsewhere"[^}]*\} [1-9]/);

    // Every fired tick was decided like a PEP event: recorded in the history and its execute run.
    await waitFor(() => pxp.calls.length >= firedTimes.length, { what: 'one execute per fired tick' });
    const settled = fired().length;
    await waitFor(async () => {
      const recorded = await replicas[0]!.pool.query('SELECT count(*)::int AS n FROM pdp.history_events WHERE action = $1', [TICK]);
      return recorded.rows[0].n >= settled;
    });
    expect(pxp.calls[0]!.body).toEqual({
      id: { urn: NOTIFY },
      parameters: [{ name: 'kind', value: { value: 'heartbeat', type: 'java.lang.String', isComplex: false } }],
    });
    const decisions = replicas.flatMap((r) => r.log.lines.filter((l) => l.msg === 'decision' && l.clientId === TIMER));
    expect(decisions.length).toBeGreaterThanOrEqual(4);
    expect(decisions.every((line) => line.allowed === true && line.action === TICK)).toBe(true);
  });

  it('stops firing once the timer is revoked', async () => {
    await applied(pap.revoke(TIMER));
    // Nothing is scheduled any more on either replica, so no later tick can fire.
    for (const replica of replicas) expect(replica.scheduler!.upcoming()).toEqual([]);
    expect(replicas.every((replica) => replica.follower.active!.timers.size === 0)).toBe(true);
  });

  it('keeps a timer whose fire times are all past deployed but never schedules it', async () => {
    const past = 'urn:timer:acme:past';
    await applied(pap.deploy(past, timerXml(past, '0 0 12 24 12 ? 2020', `<event action="${TICK}"/>`)));
    for (const replica of replicas) {
      expect(replica.follower.active!.timers.has(past)).toBe(true);
      expect(replica.scheduler!.upcoming()).toEqual([]);
      expect(replica.log.lines.filter((l) => l.msg === 'timer never fires again; not scheduled' && l.timerId === past)).toHaveLength(1);
    }
    await applied(pap.revoke(past));
  });

  it('fires a one-shot timer with a year field exactly once, then forgets it', async () => {
    const oneShot = 'urn:timer:acme:once';
    // A whole second a few seconds ahead, written as the wall clock of the replicas' zone with its year.
    const target = Math.ceil((Date.now() + 6000) / 1000) * 1000;
    const wall = berlinWallClock(target);
    const cron = `${wall.second} ${wall.minute} ${wall.hour} ${wall.day} ${wall.month} ? ${wall.year}`;
    await applied(pap.deploy(oneShot, timerXml(oneShot, cron, `<event action="${TICK}"/>`)));
    for (const replica of replicas) expect(replica.scheduler!.upcoming()).toEqual([{ id: oneShot, next: target }]);

    const lastTick = () => replicas.flatMap((r) => r.log.lines.filter((l) => l.msg === 'timer fired its last tick' && l.timerId === oneShot));
    await waitFor(() => lastTick().length === replicas.length, { timeoutMs: 20_000, what: 'both replicas passed the one tick' });
    for (const replica of replicas) expect(replica.scheduler!.upcoming()).toEqual([]);
    // The tick is claimed (its row) before it is fired (the log line): once fired, the row is there.
    await waitFor(() => replicas.some((r) => r.log.lines.some((l) => l.msg === 'timer fired' && l.timerId === oneShot)), { what: 'the fired tick' });
    const ticks = await replicas[0]!.pool.query<{ scheduled_at: string }>('SELECT scheduled_at FROM pdp.timer_ticks WHERE timer_id = $1', [oneShot]);
    expect(ticks.rows.map((row) => Number(row.scheduled_at))).toEqual([target]);
    expect(replicas.flatMap((r) => r.log.lines.filter((l) => l.msg === 'timer fired' && l.timerId === oneShot))).toHaveLength(1);
    await applied(pap.revoke(oneShot));
  });
});

/** The wall clock of `instant` in Europe/Berlin, the zone of the replicas above. */
function berlinWallClock(instant: number): Record<'year' | 'month' | 'day' | 'hour' | 'minute' | 'second', number> {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: 'Europe/Berlin',
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  }).formatToParts(instant);
  const field = (type: Intl.DateTimeFormatPartTypes): number => Number(parts.find((part) => part.type === type)?.value);
  return { year: field('year'), month: field('month'), day: field('day'), hour: field('hour'), minute: field('minute'), second: field('second') };
}
