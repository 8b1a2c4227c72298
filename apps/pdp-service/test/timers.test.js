"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
const test_kit_1 = require("@custos/test-kit");
const fake_pap_1 = require("./support/fake-pap");
const endpoints_1 = require("./support/endpoints");
const pdp_1 = require("./support/pdp");
/**
 * Timers (policy-language.md §10) on two replicas sharing one database and one (fake) pap: every tick is claimed in
 * PostgreSQL by exactly one replica, which decides the timer's events like PEP events and runs their executes.
 */
const TIMER = 'urn:timer:acme:heartbeat';
const TICK = 'urn:action:acme:tick';
const NOTIFY = 'urn:action:acme:notify';
describe('timers on two replicas', () => {
    let authority;
    let database;
    let pap;
    let replicas;
    let pxp;
    beforeAll(async () => {
        authority = await new test_kit_1.TestAuthority().start();
        database = await (0, test_kit_1.createTestDatabase)('custos_pdp_timers');
        pap = await fake_pap_1.FakePap.start((0, test_kit_1.uniqueNatsPrefix)());
        pxp = await new endpoints_1.TestEndpoint(true).start();
        replicas = [
            await (0, pdp_1.startPdp)({ authority, database, pap, timers: true, replicaId: 'replica-a', timeZone: 'Europe/Berlin' }),
            await (0, pdp_1.startPdp)({ authority, database, pap, timers: true, replicaId: 'replica-b', timeZone: 'Europe/Berlin' }),
        ];
    });
    afterAll(async () => {
        for (const replica of replicas ?? [])
            await replica.stop({ keepShared: true });
        await pap?.stop();
        await pxp?.stop();
        await database?.drop();
        await authority.stop();
    });
    const applied = (revision) => Promise.all(replicas.map((replica) => (0, test_kit_1.waitFor)(() => (replica.follower.active?.revision ?? -1) >= revision, { what: `revision ${revision}` })));
    const fired = () => replicas.flatMap((replica) => replica.log.lines.filter((l) => l.msg === 'timer fired' && l.timerId === TIMER));
    it('fires each tick once across the replicas, decides its events and runs their executes', async () => {
        pap.register((0, pdp_1.component)('PXP', 'notifier', pxp.url, [NOTIFY]));
        pap.deploy('urn:policy:acme:on-tick', (0, pdp_1.policy)('urn:policy:acme:on-tick', `<mechanism event="${TICK}">
          <if><greater><count><eventOccurrence event="${TICK}"/><when fixedTime="always"/></count><constant:number value="1000"/></greater><then><inhibit/></then></if>
          <execute action="${NOTIFY}"><parameter:string name="kind"><event:string eventParameter="kind" default="?"/></parameter:string></execute>
        </mechanism>`));
        await applied(pap.deploy(TIMER, (0, pdp_1.timerXml)(TIMER, '* * * * * ?', `<event action="${TICK}"><parameter:string name="kind" value="heartbeat"/><parameter:number name="n"><constant:number value="7"/></parameter:number></event>`)));
        for (const replica of replicas)
            expect(replica.scheduler.upcoming().map((t) => t.id)).toEqual([TIMER]);
        await (0, test_kit_1.waitFor)(() => fired().length >= 4, { timeoutMs: 15_000, what: 'four ticks' });
        const ticks = await replicas[0].pool.query('SELECT scheduled_at, replica FROM pdp.timer_ticks WHERE timer_id = $1 ORDER BY scheduled_at', [TIMER]);
        // Ticks are whole seconds, one row each; both replicas tried every tick, one of them won it.
        const times = ticks.rows.map((row) => Number(row.scheduled_at));
        expect(times.every((time) => time % 1000 === 0)).toBe(true);
        expect(new Set(times).size).toBe(times.length);
        const firedTimes = fired().map((line) => Date.parse(line.scheduledAt));
        expect(new Set(firedTimes).size).toBe(firedTimes.length);
        const attempts = await Promise.all(replicas.map((r) => r.metrics.registry.getSingleMetricAsString('timer_ticks_total')));
        expect(attempts.join('\n')).toMatch(/outcome="claimed-elsewhere"[^}]*\} [1-9]/);
        // Every fired tick was decided like a PEP event: recorded in the history and its execute run.
        await (0, test_kit_1.waitFor)(() => pxp.calls.length >= firedTimes.length, { what: 'one execute per fired tick' });
        const settled = fired().length;
        await (0, test_kit_1.waitFor)(async () => {
            const recorded = await replicas[0].pool.query('SELECT count(*)::int AS n FROM pdp.history_events WHERE action = $1', [TICK]);
            return recorded.rows[0].n >= settled;
        });
        expect(pxp.calls[0].body).toEqual({
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
        for (const replica of replicas)
            expect(replica.scheduler.upcoming()).toEqual([]);
        expect(replicas.every((replica) => replica.follower.active.timers.size === 0)).toBe(true);
    });
});
//# sourceMappingURL=timers.test.js.map