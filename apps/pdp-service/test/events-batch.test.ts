import request from 'supertest';
import { MAX_BATCH_ITEMS } from '@custos/contracts';
import { maskingPolicy, inhibitAll } from './support/policies';
import { TestClock, policy, wireEvent } from './support/pdp';
import { usePdp } from './support/use-pdp';

/** POST /events on real PostgreSQL and NATS: the same answers as a loop of POST /event, checked whole before deciding. */
const A = (name: string) => `urn:action:acme:${name}`;
const P = (name: string) => `urn:policy:acme:${name}`;

/** At most `limit` downloads per user and day (a count over the event history). */
const downloadLimit = (limit: number) =>
  policy(
    P('download-limit'),
    `<mechanism event="${A('download')}">
      <if><greater><count><eventOccurrence event="${A('download')}"><parameter:string name="user"><event:string eventParameter="user" default=""/></parameter:string></eventOccurrence><when fixedTime="today"/></count><constant:number value="${limit}"/></greater>
        <then><inhibit reason="daily limit"/></then></if>
      <else><allow/></else>
    </mechanism>`,
  );

describe('POST /events', () => {
  const clock = new TestClock(Date.parse('2026-01-15T12:00:00Z'));
  const pdp = usePdp({ clock });

  beforeAll(async () => {
    await pdp.deploy(P('mask'), maskingPolicy(P('mask'), A('show')));
    await pdp.deploy(P('block'), inhibitAll(P('block'), A('export')));
    await pdp.deploy(P('download-limit'), downloadLimit(3));
  });

  const historyRows = async (action: string) =>
    Number((await pdp.pool.query('SELECT count(*) FROM pdp.history_events WHERE action = $1', [action])).rows[0].count);
  const withoutId = ({ id: _id, ...rest }: { id: unknown }) => rest;

  it('answers each event as POST /event does, in the order of the events, with one revision', async () => {
    const events = [
      wireEvent('show', { user: { name: { firstName: 'Ann' } }, amount: 1234 }),
      wireEvent('show', { user: { name: { firstName: 'Bob' } }, amount: 1000 }),
      wireEvent('export'),
      wireEvent('unknown-action'),
    ];
    const batch = await pdp.post('/events', { events });
    expect(batch.status).toBe(200);
    const singles = [];
    for (const event of events) {
      const single = await pdp.post('/event', event);
      expect(single.status).toBe(200);
      singles.push(single.body);
    }
    expect(batch.body.decisions.map(withoutId)).toEqual(singles.map(withoutId));
    // What the policies make of them, so the comparison above compares something.
    expect(batch.body.decisions.map((d: { eventAllowed: boolean }) => d.eventAllowed)).toEqual([true, false, false, true]);
    expect(batch.body.decisions[0].modifiers).toHaveLength(2);
    expect(batch.body.decisions[0].delay).toBe(2000);
    const ids = batch.body.decisions.map((d: { id: { identifier: string } }) => d.id.identifier);
    expect(new Set(ids).size).toBe(4);
    expect(batch.headers['policy-revision']).toBe(String(pdp.follower.active?.revision));
  });

  it('records history-using events in order: a limit of 3 allows exactly the first 3, like a loop of single calls', async () => {
    const before = await historyRows(A('download'));
    const batch = await pdp.post('/events', { events: Array.from({ length: 5 }, () => wireEvent('download', { user: 'u1' })) });
    expect(batch.status).toBe(200);
    const looped = [];
    for (let i = 0; i < 5; i++) looped.push((await pdp.post('/event', wireEvent('download', { user: 'u2' }))).body.eventAllowed);
    expect(batch.body.decisions.map((d: { eventAllowed: boolean }) => d.eventAllowed)).toEqual([true, true, true, false, false]);
    expect(looped).toEqual([true, true, true, false, false]);
    expect(await historyRows(A('download'))).toBe(before + 10);
    // Interleaved users in one batch count separately, still in order.
    const mixed = await pdp.post('/events', { events: ['u3', 'u4', 'u3', 'u3', 'u4', 'u3'].map((user) => wireEvent('download', { user })) });
    expect(mixed.body.decisions.map((d: { eventAllowed: boolean }) => d.eventAllowed)).toEqual([true, true, true, true, true, false]);
  });

  it('stores the executes of every decision before answering, and logs one decision line per event', async () => {
    const executions = async () => Number((await pdp.pool.query("SELECT count(*) FROM pdp.executions WHERE action = 'urn:action:acme:notify'")).rows[0].count);
    const before = await executions();
    const batch = await pdp.post('/events', { events: [1, 1000, 2].map((amount) => wireEvent('show', { user: { name: { firstName: 'Ann' } }, amount })) }).set(
      'X-Request-Id',
      'batch-log-1',
    );
    expect(batch.status).toBe(200);
    // The two allowed decisions each required the execute; the answer came after they were stored.
    expect(await executions()).toBe(before + 2);
    const lines = pdp.log.lines.filter((line) => line.log === 'decision' && line.requestId === 'batch-log-1');
    expect(lines.map((line) => line.decisionId)).toEqual(batch.body.decisions.map((d: { id: { identifier: string } }) => d.id.identifier));
    expect(lines.map((line) => line.allowed)).toEqual([true, false, true]);
  });

  it('checks the whole batch first: an invalid event is a 400 naming it, and nothing is decided or recorded', async () => {
    const before = await historyRows(A('download'));
    const events = [
      wireEvent('download', { user: 'u9' }),
      wireEvent('download', { user: 'u9' }),
      wireEvent('download', { user: 'u9' }),
      { ...wireEvent('download'), timestamp: 'yesterday' },
      { ...wireEvent('download'), parameters: [{ name: 'a', value: { value: 1 } }, { name: 'a', value: { value: 2 } }] },
    ];
    const response = await pdp.post('/events', { events });
    expect(response.status).toBe(400);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.body.code).toBe('invalid_event');
    // Every event is checked on its own, so the problems of all of them come in one answer.
    expect(response.body.errors.map((e: { path: string }) => e.path)).toEqual(['events[3].timestamp', 'events[4].parameters[1].name']);
    const duplicate = await pdp.post('/events', { events: [wireEvent('download', { user: 'u9' }), events[4]] });
    expect(duplicate.status).toBe(400);
    expect(duplicate.body.errors).toEqual([{ path: 'events[1].parameters[1].name', message: 'repeats the name of parameters[0]' }]);
    expect(await historyRows(A('download'))).toBe(before);
  });

  it('refuses a batch with an event of a foreign solution (403), deciding none of it', async () => {
    const before = await historyRows(A('download'));
    const foreign = { ...wireEvent('download'), actionId: { scope: 'globex', action: 'download' } };
    const response = await pdp.post('/events', { events: [wireEvent('download', { user: 'u8' }), foreign] });
    expect(response.status).toBe(403);
    expect(response.headers['www-authenticate']).toMatch(/insufficient_scope/);
    expect(await historyRows(A('download'))).toBe(before);
  });

  it('bounds the batch: more than the maximum of events is a 413; the maximum itself is decided', async () => {
    const tooMany = await pdp.post('/events', { events: Array.from({ length: MAX_BATCH_ITEMS + 1 }, () => wireEvent('export')) });
    expect(tooMany.status).toBe(413);
    expect(tooMany.body.code).toBe('payload_too_large');
    expect(tooMany.body.errors).toEqual([{ path: 'events', message: `has more than ${MAX_BATCH_ITEMS} items` }]);
    const most = await pdp.post('/events', { events: Array.from({ length: MAX_BATCH_ITEMS }, () => wireEvent('export')) });
    expect(most.status).toBe(200);
    expect(most.body.decisions).toHaveLength(MAX_BATCH_ITEMS);
    const huge = await pdp.post('/events', { events: [wireEvent('export', { blob: 'x'.repeat(5 * 1024 * 1024) })] });
    expect(huge.status).toBe(413);
  });

  it('takes the same pdp.token and scope as POST /event, and answers an empty batch with no decisions', async () => {
    expect((await request(pdp.server).post('/events').send({ events: [] })).status).toBe(401);
    const other = pdp.authority.mint({ scopes: ['policy:read'], solutions: ['acme'] });
    expect((await pdp.post('/events', { events: [] }, other)).status).toBe(403);
    const empty = await pdp.post('/events', { events: [] });
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual({ decisions: [] });
    const notABatch = await pdp.post('/events', [wireEvent('export')]);
    expect(notABatch.status).toBe(400);
    expect((await request(pdp.server).get('/events')).status).toBe(405);
  });

  it('honours Min-Policy-Revision: the batch waits for the demanded revision and decides every event with it', async () => {
    const current = pdp.follower.active?.revision ?? 0;
    // Sent now (then() starts a supertest request); the deploy below is what lets it be answered.
    const answered = pdp.post('/events', { events: [wireEvent('archive'), wireEvent('archive')] })
      .set('Min-Policy-Revision', String(current + 1))
      .then((response) => response);
    const deployed = await pdp.deploy(P('archive'), inhibitAll(P('archive'), A('archive')));
    const response = await answered;
    expect(response.status).toBe(200);
    expect(Number(response.headers['policy-revision'])).toBeGreaterThanOrEqual(deployed);
    expect(response.body.decisions.map((d: { eventAllowed: boolean }) => d.eventAllowed)).toEqual([false, false]);
  });
});
