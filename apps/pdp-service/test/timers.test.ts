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
});
