import { createServer as createTcpServer, type Server as TcpServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { createTestDatabase, dropDatabase, waitFor } from '@custos/test-kit';
import { TestClock, policy, startPdp, wireEvent } from './support/pdp';
import { useAuthority, usePdp } from './support/use-pdp';

/**
 * Every history element of policy-language.md §6 through POST /event and /event/explain, on real PostgreSQL and
 * NATS, with a clock the test moves and POLICY_TIMEZONE=Europe/Berlin.
 */
const A = (name: string) => `urn:action:acme:${name}`;
const P = (name: string) => `urn:policy:acme:${name}`;

const never = (inner: string) => `<if><less>${inner}<constant:number value="-1"/></less><then><inhibit/></then></if>`;
const count = (action: string, when: string, filters = '') => `<count><eventOccurrence event="${action}">${filters}</eventOccurrence>${when}</count>`;
const FIXED = ['today', 'yesterday', 'thisWeek', 'lastWeek', 'thisSunWeek', 'lastSunWeek', 'thisMonth', 'lastMonth', 'thisYear', 'lastYear', 'always'];

describe('event history through the HTTP API', () => {
  const clock = new TestClock(Date.parse('2026-01-15T12:00:00Z'));
  const pdp = usePdp({ clock, timeZone: 'Europe/Berlin' });

  const decide = async (action: string, parameters: Record<string, unknown> = {}) => {
    const response = await pdp.post('/event', wireEvent(action, parameters));
    expect(response.status).toBe(200);
    return response.body.eventAllowed as boolean;
  };
  const explain = async (action: string, parameters: Record<string, unknown> = {}) => {
    const response = await pdp.post('/event/explain', wireEvent(action, parameters));
    expect(response.status).toBe(200);
    return response.body;
  };
  const rows = async (action: string) => Number((await pdp.pool.query('SELECT count(*) FROM pdp.history_events WHERE action = $1', [action])).rows[0].count);

  it('enforces "at most 3 per day and user": the event counts itself, filters by user, and a new day starts afresh', async () => {
    await pdp.deploy(
      P('limit'),
      policy(
        P('limit'),
        `<mechanism event="${A('download')}">
          <if><greater>${count(A('download'), '<when fixedTime="today"/>', '<parameter:string name="user"><event:string eventParameter="user" default=""/></parameter:string>')}<constant:number value="3"/></greater>
            <then><inhibit reason="daily limit"/></then></if>
          <else><allow/></else>
        </mechanism>`,
      ),
    );
    clock.set('2026-01-15T20:00:00Z');
    const u1 = [];
    for (let i = 0; i < 5; i++) u1.push(await decide('download', { user: 'u1' }));
    expect(u1).toEqual([true, true, true, false, false]);
    expect(await decide('download', { user: 'u2' })).toBe(true);
    // Inhibited attempts are recorded too (every event, whatever the decision).
    expect(await rows(A('download'))).toBe(6);
    // 23:30 in Berlin is still the same day; 00:30 is the next one.
    clock.set('2026-01-15T22:30:00Z');
    expect(await decide('download', { user: 'u1' })).toBe(false);
    clock.set('2026-01-15T23:30:00Z');
    expect(await decide('download', { user: 'u1' })).toBe(true);
  });

  it('cuts days, weeks, months and years at the boundaries of the policy zone, also across daylight saving', async () => {
    await pdp.deploy(
      P('calendar'),
      policy(P('calendar'), FIXED.map((fixed) => `<mechanism event="${A('visit')}">${never(count(A('visit'), `<when fixedTime="${fixed}"/>`))}</mechanism>`).join('\n')),
    );
    for (const at of [
      '2025-12-31T22:30:00Z', // 23:30 on 31 Dec in Berlin: last year
      '2025-12-31T23:30:00Z', // 00:30 on 1 Jan in Berlin: this year
      '2026-03-28T22:59:59Z', // Saturday 23:59:59
      '2026-03-28T23:00:00Z', // Sunday 00:00, the day clocks go forward
      '2026-03-29T09:00:00Z', // Sunday 11:00 CEST
    ]) {
      clock.set(at);
      expect(await decide('visit')).toBe(true);
    }
    clock.set('2026-03-30T08:00:00Z'); // Monday 10:00 CEST
    const before = await rows(A('visit'));
    const body = await explain('visit');
    const counts = Object.fromEntries(
      body.explanation.map((m: { mechanism: number; history: Array<{ count: number }> }) => [FIXED[m.mechanism], m.history[0]!.count]),
    );
    // The explained event counts as if recorded at now (it is not).
    expect(counts).toEqual({
      today: 1,
      yesterday: 2,
      thisWeek: 1,
      lastWeek: 3,
      thisSunWeek: 3,
      lastSunWeek: 1,
      thisMonth: 4,
      lastMonth: 0,
      thisYear: 5,
      lastYear: 1,
      always: 6,
    });
    // Spans are shown: yesterday is the 23-hour Sunday of the change, in ms since the epoch.
    const yesterday = body.explanation.find((m: { mechanism: number }) => FIXED[m.mechanism] === 'yesterday').history[0].span;
    expect(yesterday).toEqual({ from: Date.parse('2026-03-28T23:00:00Z'), to: Date.parse('2026-03-29T22:00:00Z') });
    expect(await rows(A('visit'))).toBe(before);
  });

  it('reads start and end time expressions, FIRST/LAST occurrences and filters with jsonPathQuery', async () => {
    await pdp.deploy(
      P('spans'),
      policy(
        P('spans'),
        [
          never(count(A('edit'), '<when><start time="*.*.* -1:*:*"/></when>')),
          never(count(A('edit'), `<when><start><eventOccurrence event="${A('login')}" mode="LAST"/></start></when>`)),
          never(count(A('edit'), '<when><start time="10.02.2026 00:00"/><end time="10.02.2026 23:59:59"/></when>')),
          never(count(A('edit'), `<when><end><eventOccurrence event="${A('login')}" mode="FIRST"/></end></when>`)),
          never(count(A('edit'), '<when fixedTime="always"/>', '<parameter:string name="doc" jsonPathQuery="$.dept"><event:string eventParameter="dept" default=""/></parameter:string>')),
        ]
          .map((condition) => `<mechanism event="${A('edit')}">${condition}</mechanism>`)
          .join('\n'),
      ),
    );
    const at = async (iso: string, action: string, parameters: Record<string, unknown> = {}) => {
      clock.set(iso);
      expect(await decide(action, parameters)).toBe(true);
    };
    await at('2026-02-10T08:00:00Z', 'edit', { doc: { dept: 'hr', id: 1 } });
    await at('2026-02-10T09:00:00Z', 'login');
    await at('2026-02-10T10:00:00Z', 'edit', { doc: { dept: 'it', id: 2 } });
    await at('2026-02-10T10:30:00Z', 'login');
    await at('2026-02-11T07:00:00Z', 'edit', { doc: { dept: 'hr', id: 3 } });
    await at('2026-02-11T07:45:00Z', 'edit', { doc: { id: 4 } });
    clock.set('2026-02-11T08:00:00Z');
    const body = await explain('edit', { dept: 'hr' });
    const counts = body.explanation.map((m: { history: Array<{ element: string; count?: number }> }) => m.history.find((h) => h.element === 'count')!.count);
    // last hour: 07:00, 07:45 and the explained one; since the last login (10:30): 07:00, 07:45, now;
    // on 10 Feb (Berlin): 08:00Z and 10:00Z; until the first login (09:00Z): 08:00Z; dept hr: ids 1 and 3.
    expect(counts).toEqual([3, 3, 2, 1, 2]);
    const lookups = body.explanation[1].history.find((h: { element: string }) => h.element === 'eventOccurrence');
    expect(lookups).toEqual({ element: 'eventOccurrence', action: A('login'), mode: 'last', occurrence: Date.parse('2026-02-10T10:30:00Z') });
  });

  it('decides continuousOccurrence window by window, and shows the windows', async () => {
    await pdp.deploy(
      P('streak'),
      policy(
        P('streak'),
        `<mechanism event="${A('reward')}">
          <if><continuousOccurrence interval="1d"><eventOccurrence event="${A('exercise')}"/><when><start time="-3.*.* 00:00:00"/><end time="-1.*.* 23:59:59"/></when></continuousOccurrence>
            <then><allow reason="streak"/></then></if>
          <else><inhibit reason="no streak"/></else>
        </mechanism>`,
      ),
    );
    for (const day of ['2026-04-06', '2026-04-07', '2026-04-09']) {
      clock.set(`${day}T10:00:00Z`);
      expect(await decide('exercise')).toBe(true);
    }
    clock.set('2026-04-10T10:00:00Z');
    // 7, 8, 9 April: the 8th is empty.
    expect(await decide('reward')).toBe(false);
    const body = await explain('reward');
    expect(body.explanation[0].history[0].windows.map((w: { count: number }) => w.count)).toEqual([1, 0, 1]);
    expect(body.explanation[0].history[0].windows[0].from).toBe(Date.parse('2026-04-06T22:00:00Z'));
    // Two days later the last three days (9, 10, 11 April) each hold one.
    for (const day of ['2026-04-10T11:00:00Z', '2026-04-11T10:00:00Z']) {
      clock.set(day);
      expect(await decide('exercise')).toBe(true);
    }
    clock.set('2026-04-12T10:00:00Z');
    expect(await decide('reward')).toBe(true);
  });

  it('tells valueChanged per policy and id, with `to`, and never stores while explaining', async () => {
    await pdp.deploy(
      P('status'),
      policy(
        P('status'),
        `<mechanism event="${A('status')}">
          <if><valueChanged:string id="state" to="open"><event:string eventParameter="state" default=""/></valueChanged:string>
            <then><inhibit reason="just opened"/></then></if>
          <else><allow/></else>
        </mechanism>`,
      ),
    );
    const states = ['closed', 'open', 'open', 'closed', 'open'];
    const decisions = [];
    for (const state of states) decisions.push(await decide('status', { state }));
    expect(decisions).toEqual([true, false, true, true, false]);
    // An explanation compares (closed differs from open) but stores nothing: the next `open` is no change.
    const body = await explain('status', { state: 'closed' });
    expect(body.explanation[0].valueChanged).toEqual([{ id: 'state', changed: true, stored: false }]);
    expect(await decide('status', { state: 'open' })).toBe(true);
    const stored = await pdp.pool.query('SELECT policy_id, block_id, value_hash FROM pdp.value_changed');
    expect(stored.rows).toEqual([{ policy_id: P('status'), block_id: 'state', value_hash: pdp.hasher.value('open') }]);
  });

  it('records only actions named by a deployed eventOccurrence, before evaluating', async () => {
    expect(await decide('unnamed', { x: 1 })).toBe(true);
    expect(await rows(A('unnamed'))).toBe(0);
    // `login` is named only as a FIRST/LAST reference: recorded all the same.
    expect(await rows(A('login'))).toBeGreaterThan(0);
  });
});

describe('a database outage', () => {
  const auth = useAuthority();

  const limitPolicy = policy(
    P('limit'),
    `<mechanism event="${A('download')}">
      <if><greater>${count(A('download'), '<when fixedTime="today"/>')}<constant:number value="100"/></greater><then><inhibit/></then></if>
      <else><allow/></else>
    </mechanism>`,
  );
  const purePolicy = policy(
    P('pure'),
    `<mechanism event="${A('show')}"><if><constant:true/><then><allow reason="pure"/></then></if></mechanism>`,
  );

  it('fails history-using mechanisms closed when the database is gone, while pure policies keep deciding', async () => {
    const database = await createTestDatabase('custos_pdp_outage');
    const pdp = await startPdp({ authority: auth.authority, database, defaultDecision: 'inhibit', historyTimeoutMs: 500 });
    try {
      await pdp.deploy(P('limit'), limitPolicy);
      await pdp.deploy(P('pure'), purePolicy);
      const post = (action: string) => request(pdp.server).post('/event').set('Authorization', `Bearer ${auth.token}`).send(wireEvent(action));
      expect((await post('download')).body.eventAllowed).toBe(true);
      await dropDatabase(database.name);
      const failed = await post('download');
      expect(failed.status).toBe(200);
      expect(failed.body.eventAllowed).toBe(false);
      expect(await post('show').then((r) => r.body.eventAllowed)).toBe(true);
      const line = pdp.log.lines.filter((l) => l.msg === 'decision' && l.action === A('download')).at(-1) as { errors: Array<{ message: string }> };
      expect(line.errors).toHaveLength(1);
      expect(line.errors[0]!.message).toMatch(/history/);
    } finally {
      await pdp.stop({ keepShared: true });
      await pdp.pap.stop();
      await database.drop();
    }
  });

  it('does not slow pure decisions while history decisions wait for a database that does not answer', async () => {
    // A "database" that accepts connections and never says a word.
    const sockets = new Set<Socket>();
    const silent: TcpServer = createTcpServer((socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as AddressInfo).port;
    // A timeout far beyond the test: the history decisions stay pending until the test ends the silence.
    const pdp = await startPdp({ authority: auth.authority, historyUrl: `postgres://postgres@127.0.0.1:${port}/none`, historyTimeoutMs: 120_000 });
    try {
      await pdp.deploy(P('limit'), limitPolicy);
      await pdp.deploy(P('pure'), purePolicy);
      const post = (action: string) => request(pdp.server).post('/event').set('Authorization', `Bearer ${auth.token}`).send(wireEvent(action));
      expect((await post('show')).body.eventAllowed).toBe(true);
      const history = Array.from({ length: 5 }, () => {
        const tracked: { settled: boolean; response?: request.Response } = { settled: false };
        void post('download').then((response) => Object.assign(tracked, { settled: true, response }));
        return tracked;
      });
      // The history decisions reached the silent server before the pure ones start.
      await waitFor(() => sockets.size > 0, { what: 'a connection to the silent database' });
      for (let i = 0; i < 20; i++) expect((await post('show')).body.eventAllowed).toBe(true);
      expect(history.filter((h) => h.settled)).toHaveLength(0);
      // Ending the silence (no more connections, the open ones dropped) lets them fail closed.
      silent.close();
      for (const socket of sockets) socket.destroy();
      await waitFor(() => history.every((h) => h.settled), { what: 'the history decisions after the database went away' });
      expect(history.map((h) => [h.response!.status, h.response!.body.eventAllowed])).toEqual(Array.from({ length: 5 }, () => [200, false]));
    } finally {
      await pdp.stop();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => (silent.listening ? silent.close(() => resolve()) : resolve()));
    }
  });
});
